import { now } from '../time.js';

/**
 * Closed-loop dispatch: `concurrency` virtual users, each sending its next request the
 * moment the previous one ends. The server paces the load, so the intended send time is
 * the actual one and queueing delay is invisible — which is why every report labels it
 * closed-loop. Useful for finding a throughput ceiling, not for latency under a given load.
 */
export interface ClosedLoopOptions {
  concurrency: number;
  /** Absolute ms after which no new request starts. */
  until: number;
  /** Starts request i now; calls `finished` exactly once when it ends. */
  fire: (i: number, tStart: number, finished: () => void) => void;
}

export interface ClosedLoopHandle {
  done: Promise<number>;
  stop: () => void;
}

export function dispatchClosedLoop(o: ClosedLoopOptions): ClosedLoopHandle {
  let next = 0;
  let running = 0;
  let stopped = false;
  let resolve!: (n: number) => void;
  const done = new Promise<number>((r) => (resolve = r));

  const startOne = (): void => {
    const t = now();
    if (stopped || t >= o.until) {
      if (running === 0) resolve(next);
      return;
    }
    running++;
    o.fire(next++, t, () => {
      running--;
      // Not synchronously: a failure that ends inside send() must not recurse without bound, and
      // undici frees the finished connection only after this turn — a timer lets the next request reuse it.
      setTimeout(startOne, 0);
    });
  };
  for (let u = 0; u < o.concurrency; u++) startOne();

  return {
    done,
    stop() {
      stopped = true;
      if (running === 0) resolve(next);
    },
  };
}
