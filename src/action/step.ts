import type { Octokit, RunContext } from './github-context.js';
import type { ActionInputs } from './inputs.js';

/** What a step's work hands back to main.ts, which sets the outputs in one place and fails last. */
export interface StepOutcome {
  /** Step outputs, in the order they are set; a number is written as core.setOutput writes it. */
  outputs: Record<string, string | number>;
  /** Fails the step with this one line when set. */
  failure?: string;
  /** The exit code after a failure: 1 (core.setFailed's) for a verdict, 3 for an operational error. */
  exitCode?: 1 | 3;
}

/** What every step's work is given: the inputs, the event, and a GitHub client made on first use. */
export interface StepContext {
  inputs: ActionInputs;
  ctx: RunContext;
  octokit: () => Octokit;
}

/** Cancelling the job (SIGTERM) or Ctrl-C stops the run early; the partial result is still reported, marked interrupted. */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    return await work(abort.signal);
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop);
  }
}
