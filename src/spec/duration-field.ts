import { parseDuration } from './duration.js';
import { SpecIssue } from './error.js';
import { MAX_DURATION_MS } from './limits.js';
import { show } from './messages.js';

/**
 * A spec key's duration in ms: parsed, > 0 unless zero is allowed, and at most MAX_DURATION_MS
 * (no run is longer), each failure a SpecIssue naming the key.
 */
export function durationField(path: string[], text: string, zeroAllowed: boolean): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new SpecIssue(path, (err as Error).message);
  }
  if (ms === 0 && !zeroAllowed) throw new SpecIssue(path, `is ${show(text)}; expected a duration > 0`);
  if (ms > MAX_DURATION_MS) throw new SpecIssue(path, `is ${show(text)}; expected a duration of at most ${MAX_DURATION_MS / 3_600_000}h`);
  return ms;
}
