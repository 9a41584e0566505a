import * as log from './log.js';
import { trapInterrupts } from '../run/interrupt.js';
import { armWatchdog, BOUND_GRACE_MS } from '../run/watchdog.js';
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
 * the step before that (#16.4); past the bound and a grace, the step gives up (#16.11).
 */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>, boundMs?: number): Promise<T> {
  const abort = new AbortController();
  const interrupts = trapInterrupts(abort, (line) => log.warning(line));
  const disarm =
    boundMs === undefined
      ? () => {}
      : armWatchdog({
          boundMs,
          graceMs: BOUND_GRACE_MS,
          onBound: () => {
            log.warning(`the benchmark passed its wall-clock bound of ${Math.round(boundMs / 1000)} s; stopping and reporting what it has`);
            abort.abort();
          },
          onGiveUp: () => {
            log.setFailed(
              `the benchmark was still not finished ${BOUND_GRACE_MS / 1000} s past its wall-clock bound; exiting without a result`,
            );
            process.exit(3);
          },
        });
  try {
    return await work(abort.signal);
  } finally {
    disarm();
    interrupts.release();
  }
}
