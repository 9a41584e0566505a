import { checkPhaseBefore, timerArmed, timerCleared, timerRan } from '../client/client.js';
import { now } from '../time.js';

/**
 * Open-loop dispatch in the manner of wrk2: every arrival has an absolute due time and is
 * fired at it whatever the server is doing, so a slow server shows up as latency measured
 * from the intended time instead of silently lowering the offered rate.
 *
 * setTimeout has 1 ms granularity and often wakes a little late. So we sleep only until
 * `margin` before the next arrival and cover the rest with setImmediate turns, which still let
 * sockets be serviced between checks. The margin follows the timer lateness actually observed
 * (it jumps up at once and decays slowly) within 1–2 ms: measured at 250 req/s, a 2–4 ms margin
 * doubled the generator's CPU without improving lag p99 (lateness beyond that is the OS
 * descheduling us, which spinning cannot cure), and no spinning at all raised lag p50 from
 * 0.04 to 0.6 ms. Each wake-up fires every arrival already due.
 */
const MIN_MARGIN_MS = 1;
const MAX_MARGIN_MS = 2;
const MARGIN_DECAY = 0.98;

export interface OpenLoopOptions {
  /** Due offsets in ms from runStart, ascending. */
  schedule: Float64Array;
  runStart: number;
  /** Fires arrival i; tDue is its absolute intended send time. */
  fire: (i: number, tDue: number) => void;
}

export interface DispatchHandle {
  /** Resolves with the number of arrivals fired once the schedule is exhausted or stopped. */
  done: Promise<number>;
  /** Stops firing further arrivals (interrupt, deadline). */
  stop: () => void;
  /** Ms spent spinning through idle event-loop turns before arrivals: CPU that is not the generator's work. */
  spinMs: () => number;
}

export function dispatchOpenLoop(o: OpenLoopOptions): DispatchHandle {
  const { schedule, runStart, fire } = o;
  let i = 0;
  let stopped = false;
  let margin = MIN_MARGIN_MS;
  let wakeAt = NaN;
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let spinMs = 0;
  let fastestTurn = Infinity;
  let immediateAt = NaN;
  let resolve!: (n: number) => void;
  const done = new Promise<number>((r) => (resolve = r));

  /**
   * An idle spin turn is pure overhead unless other callbacks (socket reads) ran in it. A turn up
   * to twice the fastest seen is taken as overhead alone; a longer one held other work, of
   * which only the fastest turn's worth is counted as spin.
   */
  const spinTurnMs = (turn: number) => {
    if (turn < fastestTurn) fastestTurn = turn;
    return turn < 2 * fastestTurn ? turn : fastestTurn;
  };

  /** This dispatcher, as the owner of its timer (timerArmed: a wait held past it was not idle). */
  const owner = {};

  const tick = () => {
    const spinning = immediate !== undefined;
    timer = undefined;
    immediate = undefined;
    if (stopped) return;
    const firedBefore = i;
    // Run as an immediate queued at immediateAt: a poll phase lay between the two, so every byte
    // read from here on arrived after immediateAt (src/client/client.ts, how late one read can be).
    if (spinning) checkPhaseBefore(immediateAt);
    let t = now();
    // Woken by its timer (armed with wakeAt, which only a timer's tick clears).
    if (!Number.isNaN(wakeAt)) {
      margin = Math.min(MAX_MARGIN_MS, Math.max(MIN_MARGIN_MS, margin * MARGIN_DECAY, t - wakeAt + MIN_MARGIN_MS));
      timerRan(owner, t);
      wakeAt = NaN;
    }
    while (i < schedule.length && runStart + schedule[i] <= t) {
      fire(i, runStart + schedule[i]);
      i++;
      t = now();
    }
    if (i >= schedule.length) {
      resolve(i);
      return;
    }
    const wait = runStart + schedule[i] - t;
    if (wait > margin) {
      const sleep = Math.max(1, Math.floor(wait - margin));
      wakeAt = t + sleep;
      timer = setTimeout(tick, sleep);
      timerArmed(owner, wakeAt);
    } else {
      immediate = setImmediate(tick);
      const t1 = now();
      if (spinning && i === firedBefore) spinMs += spinTurnMs(t1 - immediateAt);
      immediateAt = t1;
    }
  };
  immediate = setImmediate(tick);
  immediateAt = now();

  return {
    done,
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      timerCleared(owner);
      if (immediate) clearImmediate(immediate);
      resolve(i);
    },
    spinMs: () => spinMs,
  };
}
