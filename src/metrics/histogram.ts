import type * as hdr from 'hdr-histogram-js';
// The two modules loadgate uses, not the package's index: the index also loads the histogram log
// writer, which builds an Intl number formatter (ICU) when it loads, some 15–30 ms of every start.
import { build } from 'hdr-histogram-js/dist/HistogramBuilder.js';
import { decodeFromCompressedBase64, encodeIntoCompressedBase64 } from 'hdr-histogram-js/dist/encoding.js';
import { Count, Type, type Static, type TNumber } from '../json-schema.js';
import { round3 } from '../numbers.js';

export type Histogram = hdr.Histogram;

/** A histogram built by HdrHistogram's builder (pure JS histograms only: no WASM start-up). */
export const buildHistogram = (options: Omit<NonNullable<Parameters<typeof build>[0]>, 'useWebAssembly'>): Histogram =>
  build({ ...options, useWebAssembly: false });

/** Latencies are recorded in integer microseconds, 3 significant digits unless asked for more, auto-resizing. */
export function newHistogram(digits: 3 | 4 = 3): Histogram {
  return buildHistogram({ numberOfSignificantValueDigits: digits, lowestDiscernibleValue: 1, autoResize: true });
}

/**
 * The digits of the histograms whose quantiles are taken apart to bound how far the timestamps
 * moved them (TTFT, E2E and their earliest-possible twins, src/result/timestamp-error.ts). At 3
 * digits a bucket spans up to 1/1024 of its value: 32 µs at a 50 ms TTFT, 512 µs at a 700 ms E2E,
 * so the difference of two quantiles comes in steps of that size, coarser than the shift it
 * bounds (tens of µs on an idle loop). At 4 digits the steps are 2 and 32 µs, for 16 times the
 * counts: about half a megabyte per histogram at a 1 s E2E, per recorder, not per request, and
 * in a result some 60 KB per histogram after a million widely spread requests (9 KB at 3 digits).
 */
export const SHIFT_DIGITS = 4;

/** A millisecond duration as the histograms record it, in whole µs; negative values (clock skew) clamp to zero rather than throw. */
export const toMicros = (ms: number): number => (ms > 0 ? Math.round(ms * 1000) : 0);

/** Records a millisecond duration as µs (toMicros). */
export function recordMs(h: Histogram, ms: number): void {
  h.recordValue(toMicros(ms));
}

export function encodeHistogram(h: Histogram): string {
  return encodeIntoCompressedBase64(h);
}

/** A histogram as encoded, at the digits it was recorded with, auto-resizing. */
export function decodeHistogram(s: string): Histogram {
  const decoded = decodeFromCompressedBase64(s, 32, false);
  const h = emptyLike(decoded);
  h.add(decoded);
  return h;
}

/** An empty histogram at another's digits: what merging into keeps (a 3-digit one would coarsen a 4-digit one). */
export function emptyLike(h: Histogram): Histogram {
  return newHistogram(h.numberOfSignificantValueDigits >= 4 ? 4 : 3);
}

/** A summary of durations, in ms. */
export type LatencySummary = Summary;
/** A summary of unitless counts: token lengths. */
export type CountSummary = Summary;

export const PERCENTILES = [
  ['p50', 50],
  ['p90', 90],
  ['p95', 95],
  ['p99', 99],
  ['p999', 99.9],
] as const;

export type PercentileKey = (typeof PERCENTILES)[number][0];

const percentileFields = Object.fromEntries(PERCENTILES.map(([k]) => [k, Type.Number()])) as Record<PercentileKey, TNumber>;
/** Count, mean, extremes and percentiles of a histogram, in the histogram's unit. */
export const SummarySchema = Type.Object({
  count: Count(),
  mean: Type.Number(),
  min: Type.Number(),
  ...percentileFields,
  max: Type.Number(),
});
export type Summary = Static<typeof SummarySchema>;

/** The index-level API every JS HdrHistogram has but the published interface omits. */
export interface HdrIndexed {
  countsArrayLength: number;
  getCountAtIndex(i: number): number;
  valueFromIndex(i: number): number;
  lowestEquivalentValue(v: number): number;
  highestEquivalentValue(v: number): number;
  medianEquivalentValue(v: number): number;
}

/** The unit in the last place of x, as HdrHistogram computes it. */
const ulp = (x: number) => Math.pow(2, Math.floor(Math.log2(x)) - 52);

/**
 * The count HdrHistogram's getValueAtPercentile walks to: ⌈p/100 · n⌉, less one ulp first so
 * floating-point error never skips a count, and at least the first entry.
 */
function countAtPercentile(p: number, n: number): number {
  const fp = (Math.min(p, 100) / 100) * n;
  return Math.max(Math.ceil(fp - ulp(fp)), 1);
}

/**
 * Summary scaled by `unit` (1000 turns recorded µs into ms); null when empty, so "no samples" never reads as 0.
 * The same figures as the histogram's own mean and getValueAtPercentile (min: the lowest
 * equivalent value of the first entry; every other percentile the highest of its bucket; the
 * mean over bucket midpoints, summed in index order), in one pass over the counts instead of
 * one per figure: HdrHistogram's JS mean walks a general-purpose iterator, and was most of the
 * cost of assembling a result.
 */
function summarize(h: Histogram, unit: number): Summary | null {
  const n = h.totalCount;
  if (n === 0) return null;
  const x = h as unknown as HdrIndexed;
  const wanted: { key: keyof Summary; rank: number }[] = [
    ...PERCENTILES.map(([key, p]) => ({ key, rank: countAtPercentile(p, n) })),
    { key: 'max', rank: n },
  ];
  // Keys in the order results have always written them.
  const s = { count: n, mean: 0, min: 0, max: 0 } as Summary;
  let next = 0;
  let cum = 0;
  let total = 0;
  for (let i = 0; i < x.countsArrayLength; i++) {
    const c = x.getCountAtIndex(i);
    if (c === 0) continue;
    const v = x.valueFromIndex(i);
    if (cum === 0) s.min = round3(x.lowestEquivalentValue(v) / unit);
    cum += c;
    total += x.medianEquivalentValue(v) * c;
    for (; next < wanted.length && wanted[next].rank <= cum; next++) s[wanted[next].key] = round3(x.highestEquivalentValue(v) / unit);
  }
  s.mean = round3(total / n / unit);
  return s;
}

/** Latency summary in milliseconds. */
export const summarizeMs = (h: Histogram): LatencySummary | null => summarize(h, 1000);

/** Summary of unitless counts (token lengths), recorded as plain integers. */
export const summarizeCounts = (h: Histogram): CountSummary | null => summarize(h, 1);

/** The generator's own delays (event-loop delay, pool wait) are reported by these three. */
export const DelayTailSchema = Type.Object({ p50: Type.Number(), p99: Type.Number(), max: Type.Number() });
export type DelayTail = Static<typeof DelayTailSchema>;

export function delayTail(s: LatencySummary | null): DelayTail | null {
  return s && { p50: s.p50, p99: s.p99, max: s.max };
}
