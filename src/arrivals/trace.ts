/**
 * A replayed trace's arrivals as the open-loop schedule. The trace's own clock is sliced to
 * [startMs, startMs + durationMs) and rescaled,
 *
 *   offset = (t − startMs) / speedup,
 *
 * so speedup 2 replays the slice in half the time with the same order and relative gaps, and a
 * slice starting at 0 keeps the trace's own offsets (its first arrival need not be at 0). The result
 * is the same ascending Float64Array that buildSchedule makes, fired by the same dispatcher.
 */
export interface TraceSlice {
  speedup: number;
  startMs: number;
  /** Trace time kept after startMs; Infinity keeps the rest. */
  durationMs: number;
}

/** Indices of the arrivals kept by the slice, and their schedule offsets; `timesMs` ascending. */
export function sliceTrace(timesMs: readonly number[], slice: TraceSlice): { kept: number[]; schedule: Float64Array } {
  const kept: number[] = [];
  const end = slice.startMs + slice.durationMs;
  for (let i = 0; i < timesMs.length; i++) if (timesMs[i] >= slice.startMs && timesMs[i] < end) kept.push(i);
  const schedule = new Float64Array(kept.length);
  kept.forEach((k, j) => (schedule[j] = (timesMs[k] - slice.startMs) / slice.speedup));
  return { kept, schedule };
}

/** The arrivals due before the run's end (`totalMs`): the run's timeline frames the trace. */
export function scheduleWithin(schedule: Float64Array, totalMs: number): Float64Array {
  let n = 0;
  while (n < schedule.length && schedule[n] < totalMs) n++;
  return n === schedule.length ? schedule : schedule.subarray(0, n);
}
