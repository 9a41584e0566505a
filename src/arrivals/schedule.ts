import { createArrivalProcess, type ArrivalKind } from './process.js';

export interface ScheduleOptions {
  kind: ArrivalKind;
  ratePerS: number;
  burstiness: number;
  seed: number;
  /** Arrivals are generated in [0, durationMs). */
  durationMs: number;
}

/**
 * The whole open-loop schedule, computed up front: offsets in ms from the start of the run.
 * A Float64Array keeps it compact (8 bytes per request) and the dispatcher allocation-free.
 * The first arrival comes one gap after the start, as in a process observed from time 0.
 */
export function buildSchedule(o: ScheduleOptions): Float64Array {
  const process = createArrivalProcess(o.kind, o.ratePerS, o.seed, o.burstiness);
  let out = new Float64Array(Math.max(16, Math.ceil(((o.ratePerS * o.durationMs) / 1000) * 1.2) + 16));
  let n = 0;
  let t = process.nextGapMs();
  while (t < o.durationMs) {
    if (n === out.length) {
      const grown = new Float64Array(out.length * 2);
      grown.set(out);
      out = grown;
    }
    out[n++] = t;
    t += process.nextGapMs();
  }
  return out.slice(0, n);
}
