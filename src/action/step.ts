import * as log from './log.js';
import { guardRun } from '../run/guard.js';
import type { Octokit, RunContext } from './github-context.js';
import type { ActionInputs } from './inputs.js';

/** What a step's work hands back to main.ts, which sets the outputs in one place and fails last. */
export interface StepOutcome {
  /** Step outputs, in the order they are set; a number is written as core.setOutput writes it. */
  outputs: Record<string, string | number>;
  /** Fails the step with this one line when set. */
  failure?: string;
  /** The exit code after a failure: 1 (log.setFailed's) for a verdict, 3 for an operational error. */
  exitCode?: 1 | 3;
}

/** What every step's work is given: the inputs, the event, and a GitHub client made on first use. */
export interface StepContext {
  inputs: ActionInputs;
  ctx: RunContext;
  octokit: () => Octokit;
}

/**
 * Cancelling the job (SIGTERM), Ctrl-C or the spec's wall-clock bound (`boundMs`) stops the run
 * early; the partial result is still reported, marked interrupted. A second signal never kills
 * the step before that; past the bound and a grace, the step gives up.
 */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>, boundMs?: number): Promise<T> {
  const guard = guardRun({
    say: (line) => log.warning(line),
    boundMs,
    boundLine: (s) => `the benchmark passed its wall-clock bound of ${s} s; stopping and reporting what it has`,
    giveUp: (s) => log.setFailed(`the benchmark was still not finished ${s} s past its wall-clock bound; exiting without a result`),
  });
  try {
    return await work(guard.signal);
  } finally {
    guard.release();
  }
}
