import * as hdr from 'hdr-histogram-js';
import { Count, Type, type Static, type TNumber } from '../json-schema.js';
import { round3 } from '../numbers.js';

export type Histogram = hdr.Histogram;

/** Latencies are recorded in integer microseconds, 3 significant digits, auto-resizing. Pure JS: no WASM start-up. */
export function newHistogram(): Histogram {
  return hdr.build({ useWebAssembly: false, numberOfSignificantValueDigits: 3, lowestDiscernibleValue: 1, autoResize: true });
}

/** Records a millisecond duration as µs; negative values (clock skew) clamp to zero rather than throw. */
export function recordMs(h: Histogram, ms: number): void {
  h.recordValue(ms > 0 ? Math.round(ms * 1000) : 0);
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decodeHistogram(s: string): Histogram {
  const decoded = hdr.decodeFromCompressedBase64(s, 32, false);
  const h = newHistogram();
  h.add(decoded);
  return h;
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

/** Summary scaled by `unit` (1000 turns recorded µs into ms); null when empty, so "no samples" never reads as 0. */
function summarize(h: Histogram, unit: number): Summary | null {
  if (h.totalCount === 0) return null;
  const s = {
    count: h.totalCount,
    mean: round3(h.mean / unit),
    min: round3(h.getValueAtPercentile(0) / unit),
    max: round3(h.getValueAtPercentile(100) / unit),
  } as Summary;
  for (const [key, p] of PERCENTILES) s[key] = round3(h.getValueAtPercentile(p) / unit);
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
