import { delayTail, newHistogram, recordMs, summarizeMs, type DelayTail } from './histogram.js';
import { now } from '../time.js';
import { timerArmed, timerCleared, timerRan } from '../client/client.js';

const INTERVAL_MS = 10;

/**
 * Our own fixed-interval event-loop probe: a timer asks to run every 10 ms and records how
 * late it actually ran. Node's monitorEventLoopDelay reports the whole interval instead of
 * the excess, which reads as 10 ms of "delay" on an idle loop. `onLate` is told each tick's
 * lateness, the missed ones included.
 */
export function startLoopProbe(onLate?: (ms: number) => void): { stop(): DelayTail } {
  const h = newHistogram();
  let due = now() + INTERVAL_MS;
  // Its due time tells the read clock when the loop's idle wait must end (a wait past it was held).
  const owner = {};
  timerArmed(owner, due);
  const timer = setInterval(() => {
    const t = now();
    recordMs(h, t - due);
    // A stall of L ms swallows the ticks that fell due inside it: told as one lateness each
    // (L, L − 10, L − 20, … ms), so `onLate` samples lateness evenly in time, as arrivals do,
    // instead of once per stall however long it lasted.
    if (onLate) {
      let late = t - due;
      do onLate(late);
      while ((late -= INTERVAL_MS) > 0);
    }
    due = t + INTERVAL_MS;
    timerRan(owner, t);
    timerArmed(owner, due);
  }, INTERVAL_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      timerCleared(owner);
      return delayTail(summarizeMs(h)) ?? { p50: 0, p99: 0, max: 0 };
    },
  };
}
