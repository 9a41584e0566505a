import type { HdrIndexed, Histogram } from './histogram.js';

/**
 * A histogram as flat arrays of its non-empty buckets, ascending: what the bootstrap and the
 * charts walk over. Values are each bucket's highest equivalent value (what HdrHistogram's
 * getValueAtPercentile reports), scaled by `unit` (1000: µs → ms).
 */
export interface Buckets {
  values: Float64Array;
  counts: Float64Array;
  /** Running total of counts: cum[i] = counts[0] + … + counts[i]. */
  cum: Float64Array;
  n: number;
}

export function bucketsOf(h: Histogram, unit = 1000): Buckets {
  const x = h as unknown as HdrIndexed;
  const values: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < x.countsArrayLength; i++) {
    const c = x.getCountAtIndex(i);
    if (c > 0) {
      values.push(x.highestEquivalentValue(x.valueFromIndex(i)) / unit);
      counts.push(c);
    }
  }
  const cum = new Float64Array(counts.length);
  counts.reduce((acc, c, i) => (cum[i] = acc + c), 0);
  return { values: Float64Array.from(values), counts: Float64Array.from(counts), cum, n: cum.length > 0 ? cum[cum.length - 1] : 0 };
}

/** Rank of percentile p among n samples, as HdrHistogram counts it: ⌈p/100 · n⌉, at least 1. */
export function rankOfPercentile(n: number, p: number): number {
  return Math.max(1, Math.ceil((p / 100) * n - 1e-9));
}

/** Value of the first bucket whose running count reaches `rank` (binary search). */
export function valueAtRank(b: Buckets, rank: number): number {
  let lo = 0;
  let hi = b.cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (b.cum[mid] >= rank) hi = mid;
    else lo = mid + 1;
  }
  return b.values[lo];
}

export const percentileOf = (b: Buckets, p: number) => valueAtRank(b, rankOfPercentile(b.n, p));

/** Σ count·value and Σ count·value² over the buckets. */
export function moments(b: Buckets): { sum: number; sumSq: number } {
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < b.values.length; i++) {
    sum += b.counts[i] * b.values[i];
    sumSq += b.counts[i] * b.values[i] * b.values[i];
  }
  return { sum, sumSq };
}
