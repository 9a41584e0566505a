import { delayTail, newHistogram, recordMs, summarizeMs, type DelayTail } from './histogram.js';
import { now } from '../time.js';

const INTERVAL_MS = 10;

/**
 * Our own fixed-interval event-loop probe: a timer asks to run every 10 ms and records how
 * late it actually ran. Node's monitorEventLoopDelay reports the whole interval instead of
 * the excess, which reads as 10 ms of "delay" on an idle loop.
 */
export function startLoopProbe(): { stop(): DelayTail } {
  const h = newHistogram();
  let due = now() + INTERVAL_MS;
  const timer = setInterval(() => {
    const t = now();
    recordMs(h, t - due);
    due = t + INTERVAL_MS;
  }, INTERVAL_MS);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return delayTail(summarizeMs(h)) ?? { p50: 0, p99: 0, max: 0 };
    },
  };
}
