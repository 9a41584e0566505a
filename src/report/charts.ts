import { bucketsOf, percentileOf } from '../metrics/buckets.js';
import { chartedMetrics } from '../metrics/definitions.js';
import { decodeHistogram } from '../metrics/histogram.js';
import type { Result } from '../result/types.js';
import { lineChart, type Series } from './svg.js';
import { maxOf } from '../numbers.js';

const BASELINE = '#8a8a8a';
const CURRENT = '#1f6feb';

/**
 * Latency by percentile (the CDF with its axes swapped), x stretched as log₁₀(1/(1 − p)) so
 * p90, p99 and p99.9 sit one step apart and the tail — where regressions hide — gets the room.
 * Drawn only as far as the samples reach (p = 1 − 1/n).
 */
function spectrum(r: Result, histogram: string): [number, number][] {
  const encoded = r.histograms[histogram];
  if (encoded === undefined) return [];
  const b = bucketsOf(decodeHistogram(encoded));
  if (b.n === 0) return [];
  const reach = Math.min(5, Math.log10(b.n));
  const points: [number, number][] = [];
  for (let x = 0; x <= reach + 1e-9; x += 0.02) points.push([x, percentileOf(b, 100 * (1 - 10 ** -x))]);
  return points;
}

const SPECTRUM_TICKS = ['0', '90', '99', '99.9', '99.99', '99.999'].map((label, at) => ({ at, label: `p${label}` }));

/** The latencies charted: those the metric table gives a percentile chart. */
const LATENCIES = chartedMetrics();

export function latencyCharts(baseline: Result | null, current: Result): string[] {
  return LATENCIES.map(({ histogram: h, label }) => {
    const title = `${label} (ms) by percentile`;
    const series: Series[] = [{ name: 'current', points: spectrum(current, h), color: CURRENT }];
    if (baseline) series.unshift({ name: 'baseline', points: spectrum(baseline, h), color: BASELINE, dashed: true });
    const reach = Math.ceil(
      maxOf(
        series.flatMap((s) => s.points.map((p) => p[0])),
        1,
      ),
    );
    return lineChart(title, series, { label: 'percentile', ticks: SPECTRUM_TICKS.slice(0, reach + 1) }, { label: 'ms' });
  });
}

/** Counts per interval as (seconds since start, rate per second) points. */
const perSecond = (values: number[], intervalS: number): [number, number][] => values.map((v, i) => [i * intervalS, v / intervalS]);

/** The series over the whole run, warmup and cooldown included (the window is where they are steady). */
export function timeseriesCharts(baseline: Result | null, current: Result): string[] {
  const t = current.timeseries;
  const iv = t.interval_s;
  const requests = lineChart(
    'Requests per second (current run)',
    [
      { name: 'sent', points: perSecond(t.sent, iv), color: BASELINE },
      { name: 'ok', points: perSecond(t.ok, iv), color: '#2da44e' },
      { name: 'errors', points: perSecond(t.errors, iv), color: '#cf222e' },
    ],
    { label: 'seconds since start' },
    { label: 'requests/s' },
  );
  const tokens: Series[] = [{ name: 'current', points: perSecond(t.output_tokens, iv), color: CURRENT }];
  if (baseline)
    tokens.unshift({
      name: 'baseline',
      points: perSecond(baseline.timeseries.output_tokens, baseline.timeseries.interval_s),
      color: BASELINE,
      dashed: true,
    });
  return [requests, lineChart('Output tokens per second', tokens, { label: 'seconds since start' }, { label: 'tokens/s' })];
}

/** Gauge values per interval as points, skipping intervals no scrape fell in. */
const gaugePoints = (values: (number | null)[], intervalS: number, scale = 1): [number, number][] =>
  values.flatMap((v, i) => (v === null ? [] : [[i * intervalS, v * scale] as [number, number]]));

/** Queue depth and KV-cache use from the server's /metrics, on the client series' time axis; [] without a server view. */
export function serverCharts(baseline: Result | null, current: Result): string[] {
  const s = current.server;
  if (!s?.available) return [];
  const t = s.timeseries;
  const queue = lineChart(
    'Requests running and waiting (server, current run)',
    [
      { name: 'running', points: gaugePoints(t.running, t.interval_s), color: '#2da44e' },
      { name: 'waiting', points: gaugePoints(t.waiting, t.interval_s), color: '#cf222e' },
    ],
    { label: 'seconds since start' },
    { label: 'requests' },
  );
  const kv: Series[] = [{ name: 'current', points: gaugePoints(t.kv_cache_usage, t.interval_s, 100), color: CURRENT }];
  const b = baseline?.server;
  if (b?.available)
    kv.unshift({
      name: 'baseline',
      points: gaugePoints(b.timeseries.kv_cache_usage, b.timeseries.interval_s, 100),
      color: BASELINE,
      dashed: true,
    });
  return [queue, lineChart('KV cache in use (server)', kv, { label: 'seconds since start' }, { label: '%' })];
}
