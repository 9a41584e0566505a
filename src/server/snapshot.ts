import {
  COUNTER_SERIES,
  ENGINE_METRICS,
  GAUGE_SERIES,
  HISTOGRAM_SERIES,
  detectEngine,
  type CounterSeries,
  type EngineMetric,
  type EngineName,
  type GaugeSeries,
  type HistogramSeries,
} from './engines.js';
import type { Family } from './exposition.js';
import { maxOf } from '../numbers.js';

/** A cumulative histogram: counts of observations ≤ each upper bound (the last is +Inf), in seconds. */
export interface Buckets {
  le: number[];
  counts: number[];
  sum: number;
  count: number;
}

/** One scrape, in loadgate's series. `t` is when the response arrived (absolute ms, src/time.ts). */
export interface Snapshot {
  t: number;
  /** When the scrape was sent: the server sampled its gauges between `sent` and `t`. */
  sent: number;
  gauges: Partial<Record<GaugeSeries, number>>;
  counters: Partial<Record<CounterSeries, number>>;
  histograms: Partial<Record<HistogramSeries, Buckets>>;
}

/** The engine an exposition comes from and the table rows it exposes, one per series (the first name listed wins). */
export function engineRows(families: Map<string, Family>): { engine: EngineName | null; rows: EngineMetric[] } {
  const present = new Set(families.keys());
  for (const name of families.keys()) if (name.endsWith('_total')) present.add(name.slice(0, -'_total'.length));
  const engine = detectEngine(present);
  const rows: EngineMetric[] = [];
  const seen = new Set<string>();
  for (const row of ENGINE_METRICS) {
    if (row.engine !== engine || seen.has(row.series) || !present.has(row.family)) continue;
    seen.add(row.series);
    rows.push(row);
  }
  return { engine, rows };
}

/** The labels engines name their model with (vLLM and SGLang: model_name). */
const MODEL_LABELS = ['model_name', 'model'];

/**
 * The family's samples of one model: an engine serving several models (or a gateway in front of
 * several) labels each series with its model, and only the benchmarked model's belong in its view.
 * A family whose samples name no such model (unlabelled, or another spelling of the name) is kept whole.
 */
export function samplesOfModel(f: Family, model: string | undefined): Family {
  if (model === undefined) return f;
  const named = (x: Family['samples'][number]) => MODEL_LABELS.some((l) => x.labels[l] === model);
  if (!f.samples.some(named)) return f;
  return { ...f, samples: f.samples.filter(named) };
}

/** A scrape's families read through the engine's rows of the mapping table, for the benchmarked model when the series name it. */
export function snapshotOf(t: number, families: Map<string, Family>, rows: readonly EngineMetric[], sent = t, model?: string): Snapshot {
  const s: Snapshot = { t, sent, gauges: {}, counters: {}, histograms: {} };
  for (const row of rows) {
    const family = families.get(row.family) ?? families.get(`${row.family}_total`);
    if (!family) continue;
    const f = samplesOfModel(family, model);
    if (row.type === 'histogram') {
      const b = histogramOf(f);
      if (b) s.histograms[row.series as HistogramSeries] = b;
      continue;
    }
    const values = f.samples.filter((x) => !x.name.endsWith('_created')).map((x) => x.value);
    if (values.length === 0) continue;
    const v = row.combine === 'max' ? maxOf(values) : values.reduce((a, b) => a + b, 0);
    if ((GAUGE_SERIES as readonly string[]).includes(row.series)) s.gauges[row.series as GaugeSeries] = v;
    else if ((COUNTER_SERIES as readonly string[]).includes(row.series)) s.counters[row.series as CounterSeries] = v;
  }
  return s;
}

/** The family's buckets added across label sets (models, ranks) that share the bounds; null without a +Inf bucket. */
function histogramOf(f: Family): Buckets | null {
  const byLe = new Map<number, number>();
  let sum = 0;
  let count = 0;
  for (const x of f.samples) {
    if (x.name === `${f.name}_bucket`) {
      const le = Number(x.labels.le === '+Inf' ? Infinity : x.labels.le);
      if (Number.isNaN(le)) continue;
      byLe.set(le, (byLe.get(le) ?? 0) + x.value);
    } else if (x.name === `${f.name}_sum`) sum += x.value;
    else if (x.name === `${f.name}_count`) count += x.value;
  }
  if (!byLe.has(Infinity)) return null;
  const le = [...byLe.keys()].sort((a, b) => a - b);
  return { le, counts: le.map((b) => byLe.get(b)!), sum, count };
}

export { HISTOGRAM_SERIES };
