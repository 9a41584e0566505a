import { advanceBy, constantCurve, expectedArrivals, isFlat } from './curve.js';
import type { RateCurve } from './curve.js';
import { createUnitProcess, type ArrivalKind } from './process.js';

interface ScheduleBase {
  kind: ArrivalKind;
  burstiness: number;
  seed: number;
  /** Arrivals are generated in [0, durationMs). */
  durationMs: number;
}

/** A constant rate, or any rate curve λ(t) (src/arrivals/curve.ts). */
export type ScheduleOptions = ScheduleBase & ({ ratePerS: number } | { curve: RateCurve });

/**
 * The whole open-loop schedule, computed up front: offsets in ms from the start of the run.
 * A Float64Array keeps it compact (8 bytes per request) and the dispatcher allocation-free.
 * The first arrival comes one gap after the start, as in a process observed from time 0.
 *
 * Arrivals are the unit process mapped through Λ⁻¹ (curve.ts). On a flat segment of rate r the
 * map is t ↦ t + gap·1000/r, so the gap is drawn at that scale and added, exactly as a constant
 * rate always was; only a gap that crosses into the next segment, or one on a sloped segment,
 * goes through Λ⁻¹ as a unit-mass gap.
 */
export function buildSchedule(o: ScheduleOptions): Float64Array {
  const curve = 'curve' in o ? o.curve : constantCurve(o.ratePerS);
  const unit = createUnitProcess(o.kind, o.seed, o.burstiness);
  const expected = expectedArrivals(curve, 0, o.durationMs);
  let out = new Float64Array(Math.max(16, Math.ceil(expected * 1.2) + 16));
  let n = 0;
  let i = 0;
  let t = 0;
  for (;;) {
    const s = curve.segments[i];
    if (isFlat(s) && s.fromRate > 0) {
      const m = 1000 / s.fromRate;
      const gap = unit.nextGap(m);
      if (t + gap < s.toMs) t += gap;
      else ({ t, i } = advanceBy(curve, i + 1, s.toMs, (t + gap - s.toMs) / m));
    } else if (isFlat(s)) {
      if (s.toMs === Infinity) break;
      ({ t, i } = advanceBy(curve, i + 1, s.toMs, unit.nextGap(1)));
    } else ({ t, i } = advanceBy(curve, i, t, unit.nextGap(1)));
    if (!(t < o.durationMs)) break;
    if (n === out.length) {
      const grown = new Float64Array(out.length * 2);
      grown.set(out);
      out = grown;
    }
    out[n++] = t;
  }
  return out.slice(0, n);
}
