import { maxOf, minOf } from '../numbers.js';
import type { HistoryCheck, MetricSeries } from '../history/analyze.js';
import { sinceWhenLines } from '../history/since.js';
import { escapeMarkdown as md } from './escape.js';

/** Mermaid's titles and labels sit inside double quotes: keep them plain. */
const plain = (s: string) => s.replace(/["\n\r`]/g, ' ');
const num = (x: number) => String(Math.round(x * 1000) / 1000);

/**
 * A trend as a mermaid `xychart-beta` (GitHub renders it in job summaries and comments): the
 * nightly values as a line, change points named on the x axis ("11 ▲" for a rise at night 11).
 */
export function mermaidTrend(check: HistoryCheck, s: MetricSeries): string {
  const cps = new Map(check.change_points.filter((c) => c.metric === s.metric).map((c) => [c.index, c]));
  const labels = s.points.map((p) => {
    const c = cps.get(p.index);
    return `"${p.index}${c ? (c.after > c.before ? ' ▲' : ' ▼') : ''}"`;
  });
  const values = s.points.map((p) => p.value);
  const lo = minOf(values);
  const hi = maxOf(values);
  const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.05 || 1;
  return [
    '```mermaid',
    'xychart-beta',
    `  title "${plain(s.label)} (${s.unit}) by night"`,
    `  x-axis [${labels.join(', ')}]`,
    `  y-axis "${s.unit}" ${num(Math.max(0, lo - pad))} --> ${num(hi + pad)}`,
    `  line [${values.map(num).join(', ')}]`,
    '```',
  ].join('\n');
}

/** The history's part of a job summary: since when, the change points, a trend per searched metric. */
export function historyMarkdown(check: HistoryCheck, moved: readonly string[] = []): string {
  const since = sinceWhenLines(check, moved);
  const rows = [...check.change_points]
    .sort((a, b) => b.index - a.index)
    .map(
      (c) =>
        `| ${md(c.label)} | ${c.index} | ${md(c.date.slice(0, 10))} | ${md((c.commit ?? '—').slice(0, 7))} | ${c.before} → ${c.after} ${c.unit} | ${c.direction === 'worse' ? '❌' : '✅'} ${c.change >= 0 ? '+' : ''}${Math.round(c.change * 1000) / 10} % | ${c.p_value} |`,
    );
  const table =
    rows.length > 0
      ? ['| Metric | Night | Date | Commit | Mean before → after | Change | p |', '|:--|--:|:--|:--|--:|--:|--:|', ...rows].join('\n')
      : 'No change points.';
  const charts = check.series.filter((s) => s.searched).map((s) => mermaidTrend(check, s));
  return [
    `#### History: ${check.analysed} nights${check.verdict === 'fail' ? ' — a metric got worse among the latest nights' : ''}`,
    '',
    ...(since.length > 0 ? [...since.map((l) => `- ${md(l)}`), ''] : []),
    table,
    '',
    ...charts,
  ].join('\n');
}
