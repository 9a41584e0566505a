import type { ResolvedPattern, ResolvedSpec } from '../spec/types.js';
import { curveThrough, type RateCurve } from './curve.js';

/** A stretch of the run a pattern reports on, in ms from the start of the run. */
export interface Phase {
  /** e.g. "pre-spike", "spike", "post-spike", "step 2", "slice 3", "segment 4". */
  name: string;
  fromMs: number;
  toMs: number;
  /** Nominal offered rate: Λ over the phase / its length (req/s). */
  rate: number;
}

export type PatternKind = ResolvedPattern['kind'] | 'steady';

/**
 * The run's timeline — ramp-up, warmup, the steady window, cooldown — and the rate curve over
 * all of it. The window holds the pattern; the warmup runs at the pattern's first rate and the
 * cooldown at its last, and the ramp-up rises linearly from 0 to the warmup's rate.
 */
export interface LoadPlan {
  kind: PatternKind;
  rampUpMs: number;
  windowFromMs: number;
  windowToMs: number;
  totalMs: number;
  curve: RateCurve;
  /** The pattern's phases inside the window, in time order (none for a steady rate). */
  phases: Phase[];
}

export function loadPlan(r: Pick<ResolvedSpec, 'spec' | 'warmupMs' | 'steadyMs' | 'cooldownMs' | 'rampUpMs' | 'pattern'>): LoadPlan {
  const rampUpMs = r.rampUpMs ?? 0;
  const w0 = rampUpMs + r.warmupMs;
  const w1 = w0 + r.steadyMs;
  const base = r.spec.load.rate;
  const p = r.pattern;
  // Knots of λ inside the window (offsets from its start); the curve holds the last rate after them.
  const knots: { t: number; rate: number }[] = [];
  const phases: Phase[] = [];
  const phase = (name: string, from: number, to: number, rate: number) =>
    phases.push({ name, fromMs: w0 + from, toMs: w0 + to, rate: Math.round(rate * 1e6) / 1e6 });
  if (!p || p.kind === 'soak') {
    knots.push({ t: 0, rate: base });
    if (p) {
      const len = r.steadyMs / p.segments;
      for (let k = 0; k < p.segments; k++) phase(`segment ${k + 1}`, k * len, (k + 1) * len, base);
    }
  } else if (p.kind === 'spike') {
    const peak = base * p.multiplier;
    const end = p.atMs + p.forMs;
    knots.push({ t: 0, rate: base }, { t: p.atMs, rate: base }, { t: p.atMs, rate: peak }, { t: end, rate: peak }, { t: end, rate: base });
    phase('pre-spike', 0, p.atMs, base);
    phase('spike', p.atMs, end, peak);
    if (end < r.steadyMs) phase('post-spike', end, r.steadyMs, base);
  } else if (p.kind === 'ramp') {
    knots.push({ t: 0, rate: p.from }, { t: p.overMs, rate: p.to });
    const len = p.overMs / p.slices;
    for (let k = 0; k < p.slices; k++) phase(`slice ${k + 1}`, k * len, (k + 1) * len, p.from + ((p.to - p.from) * (k + 0.5)) / p.slices);
    if (p.overMs < r.steadyMs) phase('hold', p.overMs, r.steadyMs, p.to);
  } else {
    p.rates.forEach((rate, k) => {
      knots.push({ t: k * p.eachMs, rate }, { t: (k + 1) * p.eachMs, rate });
      phase(`step ${k + 1}`, k * p.eachMs, (k + 1) * p.eachMs, rate);
    });
    const total = p.rates.length * p.eachMs;
    if (total < r.steadyMs) phase('hold', total, r.steadyMs, p.rates[p.rates.length - 1]);
  }
  const first = knots[0].rate;
  const lead =
    rampUpMs > 0
      ? [
          { t: 0, rate: 0 },
          { t: rampUpMs, rate: first },
        ]
      : [{ t: 0, rate: first }];
  const curve = curveThrough([...lead, ...knots.map((k) => ({ t: w0 + k.t, rate: k.rate }))]);
  return {
    kind: p?.kind ?? 'steady',
    rampUpMs,
    windowFromMs: w0,
    windowToMs: w1,
    totalMs: w1 + r.cooldownMs,
    curve,
    phases,
  };
}
