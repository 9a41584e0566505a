import { now } from '../time.js';

/**
 * Open-loop dispatch in the manner of wrk2: every arrival has an absolute due time and is
 * fired at it whatever the server is doing, so a slow server shows up as latency measured
 * from the intended time instead of silently lowering the offered rate.
 *
 * Timers have 1 ms granularity and fire late, so we sleep with setTimeout until shortly
 * before the next arrival and cover the last stretch with setImmediate turns, which still
 * let sockets be serviced between checks. Each wake-up fires every arrival already due.
 */
const SLEEP_MARGIN_MS = 2;

export interface OpenLoopOptions {
  /** Due offsets in ms from runStart, ascending. */
  schedule: Float64Array;
  runStart: number;
  /** Fires arrival i; tDue is its absolute intended send time. */
  fire(i: number, tDue: number): void;
}

export interface DispatchHandle {
  /** Resolves with the number of arrivals fired once the schedule is exhausted or stopped. */
  done: Promise<number>;
  /** Stops firing further arrivals (interrupt, deadline). */
  stop(): void;
}

export function dispatchOpenLoop(o: OpenLoopOptions): DispatchHandle {
  const { schedule, runStart, fire } = o;
  let i = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let resolve!: (n: number) => void;
  const done = new Promise<number>((r) => (resolve = r));

  const tick = () => {
    timer = undefined;
    immediate = undefined;
    if (stopped) return;
    const t = now();
    while (i < schedule.length && runStart + schedule[i]! <= t) {
      fire(i, runStart + schedule[i]!);
      i++;
    }
    if (i >= schedule.length) {
      resolve(i);
      return;
    }
    const wait = runStart + schedule[i]! - now();
    if (wait > SLEEP_MARGIN_MS) timer = setTimeout(tick, Math.floor(wait - SLEEP_MARGIN_MS / 2));
    else immediate = setImmediate(tick);
  };
  immediate = setImmediate(tick);

  return {
    done,
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      if (immediate) clearImmediate(immediate);
      resolve(i);
    },
  };
}
