import { escapeLogLine } from '../report/escape.js';

/** Exit codes, documented in the README: the verdict maps onto them so CI scripts can branch. */
export const EXIT = { pass: 0, fail: 1, inconclusive: 2, error: 3 } as const;

/** A problem the user can fix (bad flag, bad spec, unreachable target): printed as one line, no stack. */
export class UsageError extends Error {}

/** The first line of an error, safe on a terminal and in a CI log (escapeLogLine). */
export function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return escapeLogLine(msg.split('\n')[0]);
}
