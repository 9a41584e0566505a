import { bucketsOf, valueAtRank } from '../metrics/buckets.js';
import { decodeHistogram } from '../metrics/histogram.js';
import { normalQuantile } from '../metrics/stats.js';
import type { Result } from '../result/types.js';

/*
 * The noise each capacity rule carries, from the counts and samples of one point's window.
 * Every bound is one-sided at CAPACITY_CONFIDENCE; a rule is then "pass" when the bound that
 * favours failing still passes, "fail" when the bound that favours passing still fails, and
 * "ambiguous" between, so one noisy point neither breaks nor makes the knee.
 */

/** One-sided confidence of every capacity rule's noise bound. */
export const CAPACITY_CONFIDENCE = 0.95;
export const CAPACITY_Z = normalQuantile(CAPACITY_CONFIDENCE);

/** A rule's verdict on one point once its noise is counted. */
export type NoisyVerdict = 'pass' | 'fail' | 'ambiguous';

export interface TailInterval {
  estimate: number;
  lower: number;
  upper: number;
  samples: number;
}

/**
 * Distribution-free confidence interval of percentile p from order statistics: of n samples,
 * the number below the true p-quantile is Binomial(n, p/100), so with k = n·p/100 and
 * s = √(n·p/100·(1 − p/100)) the ranks ⌊k − z·s⌋ and ⌈k + z·s⌉ + 1 bracket it at one-sided
 * confidence Φ(z) each (the normal approximation of the binomial). Ranks past the sample are
 * open ends: with 150 samples the p99's upper rank is past the largest, so its upper bound is
 * the histogram's maximum — the honest answer for a tail that few samples reach.
 */
export function percentileInterval(r: Result, histogram: string, p: number, z = CAPACITY_Z): TailInterval | null {
  const encoded = r.histograms[histogram];
  if (encoded === undefined) return null;
  const b = bucketsOf(decodeHistogram(encoded));
  if (b.n === 0) return null;
  const q = p / 100;
  const k = b.n * q;
  const s = Math.sqrt(b.n * q * (1 - q));
  const at = (rank: number) => valueAtRank(b, Math.min(b.n, Math.max(1, rank)));
  return { estimate: at(Math.ceil(k - 1e-9)), lower: at(Math.floor(k - z * s)), upper: at(Math.ceil(k + z * s) + 1), samples: b.n };
}

export interface Shortfall {
  completed: number;
  offered: number;
  /** Requests the completions may lag the arrivals by from noise alone. */
  tolerance: number;
  verdict: NoisyVerdict;
}

/**
 * Variance of (completions − arrivals) in one window. Both are counts over the same window: A
 * arrivals and C completions. In a steady window C − A = N(start) − N(end), the requests in
 * flight at the window's edges (arrivals are the realised ones, so their Poisson noise cancels).
 * N is about Poisson with mean L = λ·W below saturation (M/G/∞), so Var(C − A) ≈ 2·L, L the
 * window's measured mean in flight. Past saturation the in-flight count is mostly a queue growing
 * by (λ − X)·T, which is the signal, not noise; there the noise is the completions' own, at most
 * Poisson: Var C ≤ C. Hence min(2·L, C).
 */
function edgeVariance(r: Result): number {
  const completed = r.throughput.requests_per_s * r.load.window_s;
  // Merged replicates (a point measured again) add their windows, and with them two edges each.
  const windows = r.merge?.mode === 'replicates' ? r.merge.merged_from : 1;
  return Math.max(0, Math.min(2 * windows * r.littles_law.mean_in_flight, completed));
}

/**
 * Completed vs offered with its noise: "C ≥ f·A" passes on its estimate, fails beyond noise when
 * C < f·A − z·σ (σ² from edgeVariance), and is ambiguous in between.
 */
export function completedVsOffered(r: Result, fraction: number, z = CAPACITY_Z): Shortfall {
  const t = r.load.window_s;
  const completed = r.throughput.requests_per_s * t;
  const offered = r.load.offered_rate_per_s * t;
  const tolerance = z * Math.sqrt(edgeVariance(r));
  const need = fraction * offered;
  const verdict = completed >= need ? 'pass' : completed < need - tolerance ? 'fail' : 'ambiguous';
  return { completed, offered, tolerance, verdict };
}

/**
 * Completed vs offered measured so the edge term vanishes: of the requests scheduled in the
 * window, the share that finished successfully, whenever they finished (the run drains them).
 * Both counts are of the same requests, so nothing in flight at an edge moves it; a server that
 * falls behind still shows here as failures and timeouts, and in its latency and tracking rules.
 */
export function windowCompletion(r: Result, fraction: number): { ok: number; scheduled: number; verdict: NoisyVerdict } {
  const scheduled = r.requests.window.scheduled;
  const ok = r.requests.window.by_class.ok;
  return { ok, scheduled, verdict: scheduled === 0 || ok >= fraction * scheduled ? 'pass' : 'fail' };
}

/** Standard error of a point's completed req/s from the same edge term: σ / T. */
export function throughputNoise(r: Result): number {
  return r.load.window_s > 0 ? Math.sqrt(edgeVariance(r)) / r.load.window_s : 0;
}

/**
 * Monotone envelope of intervals ordered by load. Latency does not fall as load rises, so the
 * true value at point i is at least every lighter point's lower bound and at most every heavier
 * point's upper bound: lower'ᵢ = max_{j ≤ i} lowerⱼ, upper'ᵢ = min_{j ≥ i} upperⱼ. A lone noisy
 * high point is capped by the quieter points above it, and a lone lucky low point is lifted by
 * a failing point below it.
 */
export function monotoneEnvelope(intervals: ({ lower: number; upper: number } | null)[]): ({ lower: number; upper: number } | null)[] {
  const lower: number[] = [];
  const upper: number[] = new Array<number>(intervals.length);
  let lo = -Infinity;
  for (const iv of intervals) lower.push((lo = Math.max(lo, iv?.lower ?? -Infinity)));
  let hi = Infinity;
  for (let i = intervals.length - 1; i >= 0; i--) upper[i] = hi = Math.min(hi, intervals[i]?.upper ?? Infinity);
  return intervals.map((iv, i) => (iv === null ? null : { lower: lower[i], upper: upper[i] }));
}

/**
 * Weighted isotonic (non-decreasing) regression by pool-adjacent-violators: the closest rising
 * curve to the points' estimates, each weighted by its samples. Where the points' intervals
 * contradict a rising curve, this is how each reads: a lone high point is pooled with the
 * quieter points above it, a lone low point with the failing one below it.
 */
export function isotonicFit(values: number[], weights: number[]): number[] {
  const blocks: { sum: number; weight: number; size: number }[] = [];
  values.forEach((v, i) => {
    const w = Math.max(weights[i], 1e-9);
    blocks.push({ sum: v * w, weight: w, size: 1 });
    while (
      blocks.length > 1 &&
      blocks[blocks.length - 2].sum / blocks[blocks.length - 2].weight > blocks[blocks.length - 1].sum / blocks[blocks.length - 1].weight
    ) {
      const top = blocks.pop()!;
      const under = blocks[blocks.length - 1];
      under.sum += top.sum;
      under.weight += top.weight;
      under.size += top.size;
    }
  });
  return blocks.flatMap((b) => new Array<number>(b.size).fill(b.sum / b.weight));
}

/** A limit judged on an interval: pass when even its upper end is within, fail when even its lower end is beyond. */
export function judgeLimit(iv: { lower: number; upper: number }, limit: number): NoisyVerdict {
  // Where the points' intervals contradict a rising curve (lower > upper), both ends still decide
  // when they agree; when they straddle the limit, the point is measured again.
  if (Math.max(iv.lower, iv.upper) <= limit) return 'pass';
  if (Math.min(iv.lower, iv.upper) > limit) return 'fail';
  return 'ambiguous';
}
