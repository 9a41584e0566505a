import { trapInterrupts } from './interrupt.js';
import { armWatchdog, BOUND_GRACE_MS } from './watchdog.js';

/** The exit code of an operational error, the same for the CLI and the Action. */
const EXIT_ERROR = 3;

export interface RunGuard {
  /** Aborts on the first Ctrl-C or SIGTERM, or when the run passes its wall-clock bound. */
  signal: AbortSignal;
  /** A second interrupt came: exit 130 once the result is written. */
  readonly forced: boolean;
  /** The wall-clock bound stopped the run. */
  readonly boundPassed: boolean;
  /** Disarms the bound and stops trapping the signals. */
  release(): void;
}

export interface GuardOptions {
  /** Tells the user of an interrupt or of the bound. */
  say: (line: string) => void;
  /** The run's wall-clock bound (src/run/bound.ts); none, no watchdog. */
  boundMs?: number;
  /** The line said when the bound (in whole seconds) passes: the run stops and writes what it has. */
  boundLine: (boundS: number) => string;
  /** Says that the run is still not finished `graceS` past the bound; the process then exits 3. */
  giveUp: (graceS: number) => void;
}

/**
 * Interrupts and the wall-clock bound around one run, for the CLI and the Action alike: the first
 * signal or the bound aborts (the result is still written, marked interrupted); a second signal
 * never kills the process before that; past the bound and a grace the process gives up.
 */
export function guardRun(o: GuardOptions): RunGuard {
  const abort = new AbortController();
  const interrupts = trapInterrupts(abort, o.say);
  let boundPassed = false;
  const { boundMs } = o;
  const disarm =
    boundMs === undefined
      ? () => {}
      : armWatchdog({
          boundMs,
          graceMs: BOUND_GRACE_MS,
          onBound: () => {
            boundPassed = true;
            o.say(o.boundLine(Math.round(boundMs / 1000)));
            abort.abort();
          },
          onGiveUp: () => {
            o.giveUp(BOUND_GRACE_MS / 1000);
            process.exit(EXIT_ERROR);
          },
        });
  return {
    signal: abort.signal,
    get forced() {
      return interrupts.forced;
    },
    get boundPassed() {
      return boundPassed;
    },
    release() {
      disarm();
      interrupts.release();
    },
  };
}
