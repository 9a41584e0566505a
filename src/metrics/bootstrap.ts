import type { Rng } from '../rng.js';
import { rankOfPercentile, valueAtRank, type Buckets } from './buckets.js';
import { beta, quantileOfSorted } from './stats.js';

/**
 * One bootstrap replicate of percentile p of a histogram, drawn exactly and in O(log buckets).
 *
 * The multinomial bootstrap resamples n values from the histogram and takes the k-th smallest,
 * k = ⌈p·n⌉. We never need the resample itself: the k-th smallest of n draws from the
 * empirical CDF F is F⁻¹(U₍ₖ₎), where U₍ₖ₎, the k-th smallest of n uniforms, is Beta(k, n−k+1).
 * So one Beta draw and one search of the running counts give the same distribution as
 * resampling all n values — which is what makes 1000 iterations on 10⁵ samples instant.
 */
export function drawPercentile(b: Buckets, p: number, rng: Rng): number {
  const k = rankOfPercentile(b.n, p);
  return valueAtRank(b, beta(rng, k, b.n - k + 1) * b.n);
}

export interface Interval {
  lower: number;
  upper: number;
}

/**
 * Percentile bootstrap interval of (percentile p of `current`) − (percentile p of `baseline`),
 * each histogram resampled independently. `lower` is the one-sided lower bound at
 * `confidence`, `upper` the one-sided upper bound; together a two-sided 2·confidence − 1 interval.
 */
export function percentileShiftInterval(
  baseline: Buckets,
  current: Buckets,
  p: number,
  confidence: number,
  iterations: number,
  rng: Rng,
): Interval {
  const diffs = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) diffs[i] = drawPercentile(current, p, rng) - drawPercentile(baseline, p, rng);
  diffs.sort();
  return { lower: quantileOfSorted(diffs, 1 - confidence), upper: quantileOfSorted(diffs, confidence) };
}
