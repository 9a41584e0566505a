import type { HistoryCheck } from './analyze.js';
import type { ChangePoint } from './types.js';

/** The latest change point of one metric, if the history has any. */
export function lastChangePoint(check: HistoryCheck, metric: string): ChangePoint | null {
  const own = check.change_points.filter((c) => c.metric === metric);
  return own.length > 0 ? own.reduce((a, b) => (b.index > a.index ? b : a)) : null;
}

/** "TPOT p50 +24 % since 2026-11-20, commit abc1234 (p = 0.001)". */
export function sinceText(c: ChangePoint): string {
  const pct = Number.isFinite(c.change) ? `${c.change >= 0 ? '+' : '−'}${Math.abs(Math.round(c.change * 1000) / 10)} %` : 'from 0';
  const commit = c.commit ? `, commit ${c.commit.slice(0, 7)}` : '';
  return `${c.label} ${pct} since ${c.date.slice(0, 10)}${commit} (${fmt(c.before)} → ${fmt(c.after)} ${c.unit}, p = ${c.p_value})`;
}

/**
 * Since when each metric moved: every metric with a change point in the history (its latest),
 * and each metric named (failed or moved in this run), which says so when the history holds none.
 */
export function sinceWhenLines(check: HistoryCheck, metrics: readonly string[]): string[] {
  const keys = new Set([...check.change_points.map((c) => c.metric), ...metrics]);
  const lines: string[] = [];
  for (const key of keys) {
    const series = check.series.find((s) => s.metric === key);
    if (!series) continue;
    const c = lastChangePoint(check, key);
    lines.push(c ? sinceText(c) : `${series.label}: no change point in the last ${check.analysed} nights`);
  }
  return lines;
}

const fmt = (x: number) => String(Math.round(x * 100) / 100);
