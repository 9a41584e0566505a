import { maxOf, round3 } from '../numbers.js';
import { GAUGE_SERIES, type CounterSeries, type GaugeSeries, type HistogramSeries } from './engines.js';
import type { Buckets, Snapshot } from './snapshot.js';
import type { GaugeSummary, ServerQuantiles, ServerSection } from './types.js';

/** The gauges a server section summarizes (mean, max, last): every gauge series but the hit-rate gauge, which feeds prefix_cache_hit_rate. */
const SUMMARY_GAUGES = GAUGE_SERIES.filter(
  (g): g is Exclude<GaugeSeries, 'prefix_cache_hit_rate_gauge'> => g !== 'prefix_cache_hit_rate_gauge',
);
type SummaryGauge = (typeof SUMMARY_GAUGES)[number];

export interface WindowBounds {
  /** Absolute ms: the run's start (the client's timeseries' origin) and the measured window. */
  runStart: number;
  windowStart: number;
  windowEnd: number;
  /** The client's timeseries: its interval and length, which the server's series copies. */
  seriesIntervalS: number;
  seriesLength: number;
}

/**
 * The server section of one run from its scrapes. Gauges: mean, max and last of the scrapes in
 * the window. Counters: the change between the window's first and last scrape (a rate over
 * their distance). Histograms: the window's last scrape's buckets less its first's, so what
 * the engine observed in the warmup never leaks in.
 */
export function windowSection(
  snaps: readonly Snapshot[],
  b: WindowBounds,
  head: Pick<ServerSection, 'url' | 'engine' | 'interval_s'>,
): ServerSection {
  const inWindow = snaps.filter((s) => s.t >= b.windowStart && s.t <= b.windowEnd);
  const first = inWindow[0];
  const last = inWindow.at(-1);
  const spanS = first && last ? (last.t - first.t) / 1000 : 0;
  const gauge = (k: GaugeSeries): GaugeSummary | undefined => {
    const xs = inWindow.map((s) => s.gauges[k]).filter((x): x is number => x !== undefined && Number.isFinite(x));
    if (xs.length === 0) return undefined;
    return { mean: round3(xs.reduce((a, x) => a + x, 0) / xs.length), max: round3(maxOf(xs)), last: round3(xs.at(-1)!) };
  };
  const delta = (k: CounterSeries): number | null => {
    const a = first?.counters[k];
    const z = last?.counters[k];
    // A counter that went down was reset (a restart): its change is unknown.
    return a === undefined || z === undefined || z < a ? null : z - a;
  };
  const quantiles = (k: HistogramSeries): ServerQuantiles | null => {
    const a = first?.histograms[k];
    const z = last?.histograms[k];
    return a && z ? histogramQuantiles(difference(z, a)) : null;
  };
  const queries = delta('prefix_cache_queries');
  const hits = delta('prefix_cache_hits');
  const hitGauge = gauge('prefix_cache_hit_rate_gauge');
  const preemptions = delta('preemptions');
  const summary: ServerSection['summary'] = {
    prefix_cache_hit_rate: queries !== null && hits !== null && queries > 0 ? round3(hits / queries) : (hitGauge?.mean ?? null),
    preemptions,
    preemptions_per_s: preemptions !== null && spanS > 0 ? round3(preemptions / spanS) : null,
  };
  for (const k of SUMMARY_GAUGES) {
    const g = gauge(k);
    if (g) summary[k] = g;
  }
  return {
    ...head,
    available: true,
    scrapes: inWindow.length,
    summary,
    ttft_ms: quantiles('ttft'),
    queue_time_ms: quantiles('queue_time'),
    itl_ms: quantiles('itl'),
    timeseries: {
      interval_s: b.seriesIntervalS,
      running: perInterval(snaps, b, 'running'),
      waiting: perInterval(snaps, b, 'waiting'),
      kv_cache_usage: perInterval(snaps, b, 'kv_cache_usage'),
    },
  };
}

/** The section of a run whose /metrics could not be used: the reason, and no figures. */
export function unavailableSection(head: Pick<ServerSection, 'url' | 'engine' | 'interval_s'>, note: string): ServerSection {
  return {
    ...head,
    available: false,
    note,
    scrapes: 0,
    summary: { prefix_cache_hit_rate: null, preemptions: null, preemptions_per_s: null },
    ttft_ms: null,
    queue_time_ms: null,
    itl_ms: null,
    timeseries: { interval_s: 1, running: [], waiting: [], kv_cache_usage: [] },
  };
}

/** The mean of a gauge's scrapes in each interval of the client's series. */
function perInterval(snaps: readonly Snapshot[], b: WindowBounds, k: GaugeSeries): (number | null)[] {
  const sums = new Array<number>(b.seriesLength).fill(0);
  const ns = new Array<number>(b.seriesLength).fill(0);
  for (const s of snaps) {
    const v = s.gauges[k];
    const i = Math.floor((s.t - b.runStart) / (b.seriesIntervalS * 1000));
    if (v === undefined || i < 0 || i >= b.seriesLength) continue;
    sums[i] += v;
    ns[i]++;
  }
  return sums.map((x, i) => (ns[i] > 0 ? round3(x / ns[i]) : null));
}

/** z − a bucket by bucket (bounds as z has them; a bound a lacks counts 0 there). */
export function difference(z: Buckets, a: Buckets): Buckets {
  const before = new Map(a.le.map((le, i) => [le, a.counts[i]]));
  return {
    le: z.le,
    counts: z.counts.map((c, i) => Math.max(0, c - (before.get(z.le[i]) ?? 0))),
    sum: z.sum - a.sum,
    count: z.count - a.count,
  };
}

/**
 * Quantiles of a cumulative histogram in seconds, as ms, the way Prometheus' histogram_quantile
 * reads one: find the bucket where the cumulative count reaches q·n and interpolate linearly
 * between its lower bound (the previous bound, 0 for the first) and its upper bound; a rank in
 * the +Inf bucket reads as the largest finite bound. The error is at most that bucket's width.
 */
export function histogramQuantiles(h: Buckets): ServerQuantiles | null {
  const n = h.counts.at(-1) ?? 0;
  if (n <= 0) return null;
  const q = (p: number) => round3(bucketQuantile(h, p) * 1000);
  // JSON has no Infinity: the +Inf bound is left out of `le`, its count stays last in `counts`.
  const finite = h.le.filter((le) => le !== Infinity);
  const counts = h.le.at(-1) === Infinity ? h.counts : [...h.counts, n];
  return {
    count: n,
    mean: round3((h.sum / n) * 1000),
    p50: q(0.5),
    p95: q(0.95),
    p99: q(0.99),
    buckets: { le: finite, counts, sum: h.sum },
  };
}

export function bucketQuantile(h: Buckets, p: number): number {
  const n = h.counts.at(-1)!;
  const rank = p * n;
  for (let i = 0; i < h.le.length; i++) {
    if (h.counts[i] < rank) continue;
    const upper = h.le[i];
    if (upper === Infinity) return h.le.length > 1 ? h.le[h.le.length - 2] : 0;
    const lower = i === 0 ? 0 : h.le[i - 1];
    const below = i === 0 ? 0 : h.counts[i - 1];
    const inBucket = h.counts[i] - below;
    return inBucket > 0 ? lower + ((upper - lower) * (rank - below)) / inBucket : upper;
  }
  return h.le.length > 1 ? h.le[h.le.length - 2] : 0;
}

/**
 * The server sections of replicates (runs one after another against one server, each with its
 * own scraper) as one section over their windows added up:
 * - gauges: the mean over every scrape (each replicate's mean weighted by its scrapes), the
 *   highest peak, and the last replicate's last value;
 * - counters: preemptions add up, per second over the scraped windows' seconds added; the prefix-cache
 *   hit rate is weighted by scrapes (the sections keep no query counts);
 * - histograms: bucket counts add, and the quantiles are read again from the sum, exactly as
 *   for one run. Inputs without buckets (older results) or with other bounds cannot be added:
 *   the first replicate's quantiles are kept, and the note says so;
 * - the per-interval series: the mean at each interval over the replicates that have a value,
 *   as the client's series of replicates are overlaid (src/result/merge.ts).
 * An unavailable section counts for nothing; none available: the first one as it is.
 */
export function mergeReplicateSections(replicates: readonly { section: ServerSection; windowS: number }[]): ServerSection {
  const scraped = replicates.filter((r) => r.section.available);
  const live = scraped.map((r) => r.section);
  if (live.length <= 1) return live[0] ?? replicates[0].section;
  const windowS = scraped.reduce((a, r) => a + r.windowS, 0);
  const scrapes = live.reduce((a, s) => a + s.scrapes, 0);
  const weighted = (xs: { v: number; w: number }[]) => {
    const w = xs.reduce((a, x) => a + x.w, 0);
    return w > 0 ? round3(xs.reduce((a, x) => a + x.v * x.w, 0) / w) : null;
  };
  const gauge = (k: SummaryGauge): GaugeSummary | undefined => {
    const has = live.filter((s) => s.summary[k]);
    if (has.length === 0) return undefined;
    return {
      mean: weighted(has.map((s) => ({ v: s.summary[k]!.mean, w: s.scrapes })))!,
      max: maxOf(has.map((s) => s.summary[k]!.max)),
      last: has.at(-1)!.summary[k]!.last,
    };
  };
  const preemptions = live.every((s) => s.summary.preemptions !== null) ? live.reduce((a, s) => a + s.summary.preemptions!, 0) : null;
  const hits = live.filter((s) => s.summary.prefix_cache_hit_rate !== null);
  const summary: ServerSection['summary'] = {
    prefix_cache_hit_rate: weighted(hits.map((s) => ({ v: s.summary.prefix_cache_hit_rate!, w: s.scrapes }))),
    preemptions,
    preemptions_per_s: preemptions !== null && windowS > 0 ? round3(preemptions / windowS) : null,
  };
  for (const k of SUMMARY_GAUGES) {
    const g = gauge(k);
    if (g) summary[k] = g;
  }
  const kept: string[] = [];
  const quantiles = (k: 'ttft_ms' | 'queue_time_ms' | 'itl_ms', label: string): ServerQuantiles | null => {
    const has = live.map((s) => s[k]).filter((q): q is ServerQuantiles => q !== null);
    if (has.length === 0) return null;
    const le = has[0].buckets?.le;
    const addable = has.every((q) => q.buckets && q.buckets.le.length === le!.length && q.buckets.le.every((b, i) => b === le![i]));
    if (!addable) {
      kept.push(label);
      return has[0];
    }
    const counts = has[0].buckets!.counts.map((_, i) => has.reduce((a, q) => a + q.buckets!.counts[i], 0));
    const sum = has.reduce((a, q) => a + q.buckets!.sum, 0);
    return histogramQuantiles({ le: [...le!, Infinity], counts, sum, count: counts.at(-1)! });
  };
  const series = (k: 'running' | 'waiting' | 'kv_cache_usage') => {
    const length = maxOf(live.map((s) => s.timeseries[k].length));
    return Array.from({ length }, (_, i) =>
      weighted(
        live.flatMap((s) => {
          const v = s.timeseries[k][i]; // undefined past a shorter replicate's end
          return v === null || v === undefined ? [] : [{ v, w: 1 }];
        }),
      ),
    );
  };
  const ttft = quantiles('ttft_ms', 'TTFT');
  const queue = quantiles('queue_time_ms', 'queue time');
  const itl = quantiles('itl_ms', 'ITL');
  const first = live[0];
  const note = kept.length > 0 ? `${kept.join(', ')} quantiles of the first replicate only (an input has no buckets to add)` : undefined;
  return {
    url: first.url,
    engine: first.engine,
    available: true,
    ...(note ? { note } : {}),
    scrapes,
    interval_s: first.interval_s,
    summary,
    ttft_ms: ttft,
    queue_time_ms: queue,
    itl_ms: itl,
    timeseries: {
      interval_s: first.timeseries.interval_s,
      running: series('running'),
      waiting: series('waiting'),
      kv_cache_usage: series('kv_cache_usage'),
    },
  };
}
