import { createRng, deriveSeed } from '../rng.js';
import { eDivisive, type Split } from './edivisive.js';
import { figureLabel } from './line.js';
import type { ChangePoint, CheckSettings, HistoryFigure, HistoryLine } from './types.js';

export interface SeriesPoint {
  /** Index of the night in the analysed series. */
  index: number;
  value: number;
  lower: number | null;
  upper: number | null;
  date: string;
  commit: string | null;
  run_id: string;
}

export interface MetricSeries {
  metric: string;
  label: string;
  unit: HistoryFigure['unit'];
  better: HistoryFigure['better'];
  /** Whether the change-point search ran over it (fractions are charted, not searched). */
  searched: boolean;
  points: SeriesPoint[];
}

export interface HistoryCheck {
  spec_name: string | null;
  spec_hash: string | null;
  /** Nights analysed: the lines of the latest line's spec, oldest first. */
  analysed: number;
  /** Lines of other specs, left out: a changed benchmark is not a changed deployment. */
  other_specs: number;
  settings: CheckSettings;
  /** Significance of each metric's test: the false-alarm rate split evenly over the metrics searched (Bonferroni). */
  alpha_per_metric: number | null;
  series: MetricSeries[];
  change_points: ChangePoint[];
  /** The worse change points among the latest fail_nights nights. */
  failing: ChangePoint[];
  verdict: 'pass' | 'fail';
}

/** The lines of the latest line's spec, in order; the rest counted. */
export function analysedLines(lines: readonly HistoryLine[]): { lines: HistoryLine[]; other: number } {
  const last = lines.at(-1);
  const same = last ? lines.filter((l) => l.spec_hash === last.spec_hash) : [];
  return { lines: same, other: lines.length - same.length };
}

/** Every metric's series over the nights, in the order the lines first name them. */
export function metricSeries(lines: readonly HistoryLine[], minSize: number): MetricSeries[] {
  const byKey = new Map<string, MetricSeries>();
  lines.forEach((l, index) => {
    for (const [metric, f] of Object.entries(l.metrics)) {
      const s = byKey.get(metric) ?? {
        metric,
        label: figureLabel(metric),
        unit: f.unit,
        better: f.better,
        searched: false,
        points: [],
      };
      byKey.set(metric, s);
      s.points.push({ index, value: f.value, lower: f.lower, upper: f.upper, date: l.date, commit: l.commit, run_id: l.run_id });
    }
  });
  const series = [...byKey.values()];
  for (const s of series) s.searched = s.unit !== 'fraction' && s.points.length >= 2 * minSize;
  return series;
}

/**
 * The change points of every searched metric over the history, and whether the latest nights
 * hold a worse one. Each metric is tested at false_alarm_rate / (metrics searched), so the
 * whole check reports a change where none happened at most at the false-alarm rate.
 */
export function checkHistory(all: readonly HistoryLine[], settings: CheckSettings): HistoryCheck {
  const { lines, other } = analysedLines(all);
  const series = metricSeries(lines, settings.min_size);
  const searched = series.filter((s) => s.searched);
  const alpha = searched.length > 0 ? settings.false_alarm_rate / searched.length : null;
  const change_points = searched.flatMap((s) => changePointsOf(s, lines.length, alpha!, settings));
  const failing = change_points.filter((c) => c.recent && c.direction === 'worse');
  return {
    spec_name: lines.at(-1)?.spec_name ?? null,
    spec_hash: lines.at(-1)?.spec_hash ?? null,
    analysed: lines.length,
    other_specs: other,
    settings,
    alpha_per_metric: alpha,
    series,
    change_points,
    failing,
    verdict: failing.length > 0 ? 'fail' : 'pass',
  };
}

function changePointsOf(s: MetricSeries, nights: number, alpha: number, settings: CheckSettings): ChangePoint[] {
  const values = s.points.map((p) => p.value);
  const rng = createRng(deriveSeed(settings.seed, s.metric));
  const splits = eDivisive(values, { alpha, permutations: settings.permutations, minSize: settings.min_size, rng });
  const cuts = [0, ...splits.map((x) => x.index), values.length];
  return splits
    .map((split, k) =>
      changePointAt(s, split, mean(values, cuts[k], cuts[k + 1]), mean(values, cuts[k + 1], cuts[k + 2]), nights, settings),
    )
    .filter((c) => Math.abs(c.change) * 100 >= settings.min_change_pct);
}

const mean = (z: readonly number[], from: number, to: number) => z.slice(from, to).reduce((a, b) => a + b, 0) / (to - from);

function changePointAt(s: MetricSeries, split: Split, before: number, after: number, nights: number, settings: CheckSettings): ChangePoint {
  const p = s.points[split.index];
  const change = before !== 0 ? (after - before) / before : after === 0 ? 0 : Infinity;
  const worse = s.better === 'lower' ? after > before : after < before;
  return {
    metric: s.metric,
    label: s.label,
    index: p.index,
    date: p.date,
    commit: p.commit,
    run_id: p.run_id,
    before: round(before),
    after: round(after),
    change: round(change, 4),
    p_value: round(split.pValue, 4),
    direction: worse ? 'worse' : 'better',
    unit: s.unit,
    recent: settings.fail_nights > 0 && p.index >= nights - settings.fail_nights,
  };
}

const round = (x: number, digits = 3) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x);
