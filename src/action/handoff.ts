import { readFileSync } from 'node:fs';
import { parseCalibration, type CalibrationFile } from '../gate/calibration.js';
import { parseResult } from '../result/load.js';

import { writeFileAtomic } from '../result/write.js';
import type { Octokit } from './github-context.js';
import { COMMENT_ID, type OnMissingBaseline } from './inputs.js';
import type { Result } from '../result/types.js';

/*
 * Fork pull requests: their workflow gets no secrets and a read-only token, so it cannot
 * comment. It writes this handoff file and uploads it as an artifact; a workflow_run workflow
 * of the base repository (trusted code, pull-requests: write) downloads it and runs the action
 * with comment-from. The file is untrusted input there: the results are validated against the
 * result schema and re-judged, the comment is rendered from data (never from the fork's
 * markdown), and the pull request number is checked against the run that produced it.
 */

export interface Handoff {
  format: 'loadgate-comment';
  version: 1;
  comment_id: string;
  pull_request: number;
  spec_path: string;
  /** Plain text; rendered escaped. */
  baseline_note: string;
  missing_baseline: { policy: OnMissingBaseline; reason: string } | null;
  current: Result;
  baseline: Result | null;
  /** The calibration the verdict used, so the comment re-judges the same way; null or absent: none. */
  calibration?: CalibrationFile | null;
}

export function writeHandoff(path: string, h: Omit<Handoff, 'format' | 'version'>): void {
  writeFileAtomic(path, `${JSON.stringify({ format: 'loadgate-comment', version: 1, ...h })}\n`);
}

const MAX_TEXT = 2000;

/** Reads and validates a handoff file; every problem is one line naming the file. */
export function readHandoff(path: string): Handoff {
  const fail = (why: string) => new Error(`comment-from ${path}: ${why}`);
  let h: Record<string, unknown>;
  try {
    h = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw fail(`cannot be read as JSON (${(err as Error).message.split('\n')[0]})`);
  }
  if (h?.format !== 'loadgate-comment' || h.version !== 1)
    throw fail('is not a loadgate comment handoff (format loadgate-comment, version 1)');
  const text = (key: string) => {
    const v = h[key];
    if (typeof v !== 'string' || v.length > MAX_TEXT) throw fail(`${key} is not a string of at most ${MAX_TEXT} characters`);
    return v;
  };
  if (!COMMENT_ID.test(text('comment_id'))) throw fail('comment_id has characters other than letters, digits and single . _ / -');
  if (!Number.isInteger(h.pull_request) || (h.pull_request as number) < 1) throw fail('pull_request is not a pull request number');
  const missing = h.missing_baseline as Handoff['missing_baseline'];
  if (
    missing !== null &&
    (typeof missing?.reason !== 'string' || missing.reason.length > MAX_TEXT || !['warn', 'fail', 'pass'].includes(missing.policy))
  ) {
    throw fail('missing_baseline is not null or { policy: warn|fail|pass, reason }');
  }
  return {
    format: 'loadgate-comment',
    version: 1,
    comment_id: text('comment_id'),
    pull_request: h.pull_request as number,
    spec_path: text('spec_path'),
    baseline_note: text('baseline_note'),
    missing_baseline: missing,
    current: parseResult(JSON.stringify(h.current ?? null), `comment-from ${path} (current result)`),
    baseline: h.baseline === null ? null : parseResult(JSON.stringify(h.baseline ?? null), `comment-from ${path} (baseline result)`),
    calibration: h.calibration == null ? null : parseCalibration(JSON.stringify(h.calibration), `comment-from ${path} (calibration)`),
  };
}

/** The handoff may only comment on the pull request whose head the triggering run built. */
export async function verifyPullRequest(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  number: number,
  headSha: string,
): Promise<void> {
  let head: string;
  try {
    head = (await octokit.rest.pulls.get({ ...repo, pull_number: number })).data.head.sha;
  } catch (err) {
    const status = (err as { status?: number }).status;
    throw new Error(
      `comment-from: cannot read pull request #${number} (${status ? `HTTP ${status}: ` : ''}${(err as Error).message.split('\n')[0]})`,
      { cause: err },
    );
  }
  if (head !== headSha) {
    throw new Error(
      `comment-from: the handoff names pull request #${number}, whose head is ${head.slice(0, 7)}, but the triggering run built ${headSha.slice(0, 7)}; refusing to comment`,
    );
  }
}
