import type { SweepDocument } from '../capacity/document.js';
import { lineChart, type Mark, type Series } from './svg.js';
import { maxOf } from '../numbers.js';

const OFFERED = '#8a8a8a';
const COMPLETED = '#1f6feb';
const TOKENS = '#8250df';
const P50 = '#2da44e';
const P90 = '#bf8700';
const P99 = '#cf222e';
const KNEE = '#9a6700';
const CAPACITY = '#1a7f37';
const SATURATION = '#cf222e';

/** The sweep's own curve (probe left out), lightest first, as (x = offered load, point). */
function curve(d: SweepDocument) {
  return d.analysis.points.filter((p) => p.mode === d.analysis.mode).sort((a, b) => a.load - b.load);
}

const xLabel = (d: SweepDocument) => (d.analysis.mode === 'open' ? 'offered rate (req/s)' : 'concurrency (closed loop)');

/** Vertical marks at the knee and capacity at SLO, on the x of the sweep's load. */
function loadMarks(d: SweepDocument): Mark[] {
  const a = d.analysis;
  const marks: Mark[] = [];
  const knee = a.knee.point === null ? null : a.points[a.knee.point]?.load;
  if (knee !== undefined && knee !== null) marks.push({ x: knee, label: 'knee', color: KNEE });
  const cap = a.capacity_at_slo.passing_load;
  if (cap !== null) marks.push({ x: cap, label: `capacity @ ${a.capacity_at_slo.target * 100} % SLO`, color: CAPACITY });
  return marks;
}

/**
 * Throughput against offered load: completed req/s (dots), the ideal X = λ (dashed; open loop),
 * the saturation plateau (horizontal), and output tokens/s in a chart of its own.
 */
export function throughputCharts(d: SweepDocument): string[] {
  const c = curve(d);
  const a = d.analysis;
  const series: Series[] = [{ name: 'completed req/s', points: c.map((p) => [p.load, p.requests_per_s]), color: COMPLETED, dots: true }];
  if (a.mode === 'open')
    series.unshift({ name: 'offered req/s', points: c.map((p) => [p.load, p.offered_rate_per_s]), color: OFFERED, dashed: true });
  const marks = loadMarks(d);
  if (a.saturation.requests_per_s !== null)
    marks.push({
      y: a.saturation.requests_per_s,
      label: `saturation ${a.saturation.requests_per_s} req/s${a.saturation.reached ? '' : ' (not reached)'}`,
      color: SATURATION,
    });
  const tokens: Series[] = [{ name: 'output tok/s', points: c.map((p) => [p.load, p.output_tokens_per_s]), color: TOKENS, dots: true }];
  return [
    lineChart(`Throughput vs offered load (${d.label})`, series, { label: xLabel(d) }, { label: 'requests/s' }, marks),
    lineChart('Output tokens/s vs offered load', tokens, { label: xLabel(d) }, { label: 'tokens/s' }, loadMarks(d)),
  ];
}

/** Latency percentiles of the sweep's metric against offered load, with S and the knee's 3 × S limit. */
export function latencyCharts(d: SweepDocument): string[] {
  const c = curve(d);
  const a = d.analysis;
  const metric = a.metric.toUpperCase();
  const pick = (f: (p: (typeof c)[number]) => number | null): [number, number][] =>
    c.flatMap((p) => (f(p) === null ? [] : [[p.load, f(p)!] as [number, number]]));
  const series: Series[] = [
    { name: `${metric} p50`, points: pick((p) => p.latency_ms.p50), color: P50, dots: true },
    { name: `${metric} p90`, points: pick((p) => p.latency_ms.p90), color: P90, dots: true },
    { name: `${metric} p99`, points: pick((p) => p.latency_ms.p99), color: P99, dots: true },
  ];
  const marks = loadMarks(d);
  if (a.service_floor_ms !== null) marks.push({ y: a.service_floor_ms, label: `S = ${a.service_floor_ms} ms`, color: P50 });
  if (a.knee.limit_ms !== null) marks.push({ y: a.knee.limit_ms, label: `3 × S`, color: KNEE });
  const e2e: Series[] = [
    { name: 'E2E mean', points: pick((p) => p.e2e_ms.mean), color: P50, dots: true },
    { name: 'E2E p99', points: pick((p) => p.e2e_ms.p99), color: P99, dots: true },
  ];
  // Past saturation the tail grows without bound and would flatten everything below the knee to
  // the axis: the chart stops at 12 × S or 1.2 × the highest p99 short of saturation (lines above are clipped).
  const below = c.filter((p) => !p.saturated).map((p) => p.latency_ms.p99 ?? 0);
  const all = c.map((p) => p.latency_ms.p99 ?? 0);
  const cap = a.service_floor_ms === null ? undefined : Math.max(12 * a.service_floor_ms, 1.2 * maxOf(below, 0));
  const yMax = cap !== undefined && cap < maxOf(all, 0) ? cap : undefined;
  const title = `${metric} percentiles vs offered load${yMax === undefined ? '' : ` (clipped at ${Math.round(yMax)} ms)`}`;
  return [
    lineChart(title, series, { label: xLabel(d) }, { label: 'ms', max: yMax }, marks),
    lineChart('E2E latency vs offered load', e2e, { label: xLabel(d) }, { label: 'ms' }, loadMarks(d)),
  ];
}
