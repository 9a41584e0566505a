import { Described, Nullable, OneOf, Type, type Static } from '../json-schema.js';
import { num, round3 } from '../numbers.js';
import { createRng, deriveSeed, type Rng } from '../rng.js';
import { percentileShiftInterval, type Interval } from './bootstrap.js';
import { bucketsOf, percentileOf, type Buckets } from './buckets.js';
import type { Histogram } from './histogram.js';
import { minSamples } from './samples.js';

/*
 * The percentile-rise test, the one the gate's latency rules judge a run against its baseline
 * with and the soak's drift judges its last segment against its first with. A percentile may
 * rise at most max(pct · before, floor ms). A rise is declared only when the point change is
 * beyond that AND so is the one-sided lower bound of its noise interval at the confidence: the
 * bootstrap interval of the percentile difference from both histograms (metrics/bootstrap.ts),
 * widened in quadrature by any further independent noise. A pair drawn from one distribution
 * therefore rises at most about 1 − confidence of the time, once each side has the tail
 * samples metrics/samples.ts minSamples asks for; with fewer the test does not judge.
 */

/** What a rise is judged against: the percentile, the allowed rise and the test's settings. */
interface RiseRule {
  /** The percentile, 0–100. */
  p: number;
  /** The allowed rise: max(pct % of before, floorMs). */
  pct: number;
  floorMs: number;
  minTail: number;
  confidence: number;
  iterations: number;
}

export interface RiseInput extends RiseRule {
  /** The histograms before and after (null: no samples there). */
  before: Buckets | null;
  after: Buckets | null;
  rng: Rng;
  /** A further half-width of independent noise (z · se), given both percentiles; none, the bootstrap alone. */
  widen?: (before: number, after: number) => number;
}

export interface RiseChange {
  abs: number;
  rel: number | null;
}

export type RiseOutcome =
  | { status: 'no-samples'; before: number | null; after: number | null; missing: 'before' | 'after' }
  | { status: 'too-few'; before: number; after: number; threshold: number; change: RiseChange; need: number; n: [number, number] }
  | {
      status: 'judged';
      before: number;
      after: number;
      threshold: number;
      change: RiseChange;
      ci: Interval;
      /** beyond: the rise and its lower bound both exceed the threshold; noise: only the rise does; within: not even the rise. */
      rise: 'beyond' | 'noise' | 'within';
    };

export function percentileRise(i: RiseInput): RiseOutcome {
  const { before: a, after: b, p } = i;
  const before = a ? percentileOf(a, p) : null;
  const after = b ? percentileOf(b, p) : null;
  if (!a || !b || before === null || after === null) return { status: 'no-samples', before, after, missing: !b ? 'after' : 'before' };
  const threshold = Math.max((i.pct / 100) * before, i.floorMs);
  const change = { abs: after - before, rel: before !== 0 ? (after - before) / before : null };
  const need = minSamples(p, i.minTail);
  if (a.n < need || b.n < need) return { status: 'too-few', before, after, threshold, change, need, n: [a.n, b.n] };
  const boot = percentileShiftInterval(a, b, p, i.confidence, i.iterations, i.rng);
  const ci = widen(boot, change.abs, i.widen?.(before, after) ?? 0);
  const rise = change.abs > threshold ? (ci.lower > threshold ? 'beyond' : 'noise') : 'within';
  return { status: 'judged', before, after, threshold, change, ci, rise };
}

/** Adds a half-width of independent noise to each side of a bootstrap interval, in quadrature. */
function widen(iv: Interval, point: number, extra: number): Interval {
  if (extra === 0) return iv;
  return { lower: point - Math.hypot(point - iv.lower, extra), upper: point + Math.hypot(iv.upper - point, extra) };
}

/**
 * The test's outcome in words: `moved` (how far it moved against the allowed rise), then the
 * lower bound when the rise is beyond the threshold, then what would have been caught and what
 * the noise was, when given.
 */
export function riseReason(
  rise: 'beyond' | 'noise' | 'within',
  w: { moved: string; bound: string; lower: string; caught?: string; noise?: string },
): string {
  const noise = w.noise === undefined ? '' : `; ${w.noise}`;
  const caught = w.caught === undefined ? '' : ` — ${w.caught}`;
  if (rise === 'beyond') return `${w.moved}; ${w.bound} ${w.lower} is beyond it too${noise}`;
  if (rise === 'noise') return `${w.moved}, but within noise: ${w.bound} is ${w.lower}${caught}${noise}`;
  return `${w.moved}${caught}${noise}`;
}

/** The soak's drift of one percentile from its first segment to its last (result pattern.soak.drift). */
export const DriftOutcomeSchema = Type.Object({
  first: Nullable(Type.Number()),
  last: Nullable(Type.Number()),
  change: Nullable(Type.Object({ abs: Type.Number(), rel: Nullable(Type.Number()) })),
  bound: Described('Allowed rise, ms.', Nullable(Type.Number())),
  ci: Nullable(Type.Object({ lower: Type.Number(), upper: Type.Number(), confidence: Type.Number() })),
  verdict: OneOf(['drift', 'none', 'inconclusive']),
  reason: Type.String(),
});
export type DriftOutcome = Static<typeof DriftOutcomeSchema>;

export interface DriftInput extends RiseRule {
  first: Histogram;
  last: Histogram;
  /** Names the drift's own random stream (`soak.drift.<id>`), so each metric's bootstrap is reproducible. */
  id: string;
}

/** The percentile-rise test between two segments of one run: drift when the last rose beyond the first's allowance and noise. */
export function segmentDrift(d: DriftInput): DriftOutcome {
  const test = percentileRise({
    before: d.first.totalCount > 0 ? bucketsOf(d.first, 1000) : null,
    after: d.last.totalCount > 0 ? bucketsOf(d.last, 1000) : null,
    p: d.p,
    pct: d.pct,
    floorMs: d.floorMs,
    minTail: d.minTail,
    confidence: d.confidence,
    iterations: d.iterations,
    rng: createRng(deriveSeed(1, `soak.drift.${d.id}`)),
  });
  const none = { first: test.before, last: test.after, change: null, bound: null, ci: null };
  if (test.status === 'no-samples') return { ...none, verdict: 'inconclusive', reason: 'no samples in the first or the last segment' };
  const change = { abs: round3(test.change.abs), rel: test.change.rel === null ? null : round3(test.change.rel) };
  const bound = round3(test.threshold);
  if (test.status === 'too-few') {
    const [nf, nl] = test.n;
    return {
      ...none,
      change,
      bound,
      verdict: 'inconclusive',
      reason: `too few samples: needs ≥ ${test.need} per segment (first ${nf}, last ${nl})`,
    };
  }
  const ci = { lower: round3(test.ci.lower), upper: round3(test.ci.upper), confidence: d.confidence };
  const ms = (x: number) => num(x); // milliseconds in reasons, as the gate words its numbers
  const reason = riseReason(test.rise, {
    moved: `${change.abs >= 0 ? 'rose' : 'fell'} ${ms(Math.abs(change.abs))} ms, allowed ${ms(test.threshold)} ms`,
    bound: 'the lower bound',
    lower: `${ms(ci.lower)} ms`,
  });
  return { first: test.before, last: test.after, change, bound, ci, verdict: test.rise === 'beyond' ? 'drift' : 'none', reason };
}
