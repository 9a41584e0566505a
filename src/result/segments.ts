import { Count, Described, Nullable, Type, type Static } from '../json-schema.js';
import type { Histogram } from '../metrics/histogram.js';
import { round3 } from '../numbers.js';
import { SEGMENT_METRICS } from '../metrics/definitions.js';
import type { SegmentHistograms } from '../metrics/segments.js';

/**
 * result.segments: per-slice percentiles of the steady window (src/metrics/segments.ts), kept
 * as values, not histograms, so the section stays a few hundred bytes. The gate reads their
 * spread as slow drift within the run (src/gate/noise.ts).
 */
export const SEGMENT_PERCENTILES = ['p50', 'p90', 'p95', 'p99'] as const;
export type SegmentPercentile = (typeof SEGMENT_PERCENTILES)[number];

const values = Type.Array(Nullable(Type.Number()));
/** One metric's slices: samples per slice, and each percentile per slice (null: no sample). */
const SegmentSeriesSchema = Type.Object({
  n: Type.Array(Count()),
  ...(Object.fromEntries(SEGMENT_PERCENTILES.map((k) => [k, values])) as Record<SegmentPercentile, typeof values>),
});
export type SegmentSeries = Static<typeof SegmentSeriesSchema>;

type SegmentKey = `${(typeof SEGMENT_METRICS)[number]}_ms`;
/** result.segments (optional in result.json: older results lack it). */
export const SegmentsSchema = Type.Object({
  count: Described('Equal slices of the window by intended send time.', Type.Integer({ minimum: 1 })),
  segment_s: Type.Number(),
  ...(Object.fromEntries(SEGMENT_METRICS.map((m) => [`${m}_ms`, SegmentSeriesSchema])) as Record<SegmentKey, typeof SegmentSeriesSchema>),
});
export type Segments = Static<typeof SegmentsSchema>;

const P: Record<SegmentPercentile, number> = { p50: 50, p90: 90, p95: 95, p99: 99 };

function series(hs: Histogram[]): SegmentSeries {
  const out = { n: hs.map((h) => h.totalCount) } as SegmentSeries;
  for (const k of SEGMENT_PERCENTILES) out[k] = hs.map((h) => (h.totalCount > 0 ? round3(h.getValueAtPercentile(P[k]) / 1000) : null));
  return out;
}

/** The section of one run, from the recorder's slice histograms (values in µs). */
export function segmentsSection(s: SegmentHistograms): Segments {
  const section = { count: s.h.length, segment_s: round3((s.toMs - s.fromMs) / s.h.length / 1000) } as Segments;
  for (const m of SEGMENT_METRICS) section[`${m}_ms`] = series(s.h.map((h) => h[m]));
  return section;
}

/**
 * Across shards (threads or machines over the same wall-clock window) slice i of each is the same
 * stretch of time, estimated from different requests: the merged slice percentile is their
 * sample-weighted mean — an estimate, not the pooled percentile, which would need the slice
 * histograms; for a spread across slices that is enough. Replicates ran at different times, so
 * their slices do not line up: the merged result carries their between-run spread instead
 * (result.replicates), and no segments. Undefined when an input lacks them.
 */
export function mergeSegments(parts: (Segments | undefined)[], mode: 'shards' | 'replicates'): Segments | undefined {
  if (parts.length === 1) return parts[0];
  if (mode === 'replicates' || parts.some((p) => p === undefined || p.count !== parts[0]!.count)) return undefined;
  const all = parts as Segments[];
  const merged = { count: all[0].count, segment_s: all[0].segment_s } as Segments;
  for (const m of SEGMENT_METRICS) {
    const key = `${m}_ms` as const;
    const n = Array.from({ length: merged.count }, (_, i) => all.reduce((a, s) => a + s[key].n[i], 0));
    const out = { n } as SegmentSeries;
    for (const k of SEGMENT_PERCENTILES) {
      out[k] = n.map((total, i) => {
        if (total === 0) return null;
        const sum = all.reduce((a, s) => a + (s[key][k][i] ?? 0) * s[key].n[i], 0);
        return round3(sum / total);
      });
    }
    merged[key] = out;
  }
  return merged;
}
