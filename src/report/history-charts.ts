import type { HistoryCheck, MetricSeries } from '../history/analyze.js';
import { sinceWhenLines } from '../history/since.js';
import { escapeHtml as esc } from './escape.js';
import { lineChart, type Series } from './svg.js';

/**
 * One trend chart per metric over the nights: the nightly value (dots), its 95 % interval
 * (dashed, above and below), the mean of each stretch between change points (the step the
 * search found), and each change point as a vertical mark labelled with its change.
 */
export function trendChart(check: HistoryCheck, s: MetricSeries): string {
  const pts = s.points;
  const points = pts.map((p) => [p.index, p.value] as [number, number]);
  const series: Series[] = [{ name: 'nightly', points, color: '#0969da', dots: true }];
  const withCi = pts.filter((p) => p.lower !== null && p.upper !== null);
  if (withCi.length > 0) {
    series.push({ name: '95 % interval', points: withCi.map((p) => [p.index, p.upper!]), color: '#8c959f', dashed: true });
    series.push({ name: '', points: withCi.map((p) => [p.index, p.lower!]), color: '#8c959f', dashed: true });
  }
  const own = check.change_points.filter((c) => c.metric === s.metric);
  if (own.length > 0)
    series.push({
      name: 'segment mean',
      points: segmentMeans(
        s,
        own.map((c) => c.index),
      ),
      color: '#bf8700',
    });
  const marks = own.map((c) => ({
    x: c.index,
    label: `${c.change >= 0 ? '+' : '−'}${Math.abs(Math.round(c.change * 100))} %`,
    color: c.direction === 'worse' ? '#cf222e' : '#1a7f37',
  }));
  const chart = lineChart(`${s.label} (${s.unit})`, series, { label: 'night' }, { label: s.unit }, marks);
  return `<figure class="trend" data-metric="${esc(s.metric)}" data-change-points="${own.map((c) => c.index).join(' ')}">${chart}</figure>`;
}

/** The mean of each stretch between change points, drawn as steps over the nights. */
function segmentMeans(s: MetricSeries, cuts: number[]): [number, number][] {
  const out: [number, number][] = [];
  const bounds = [s.points[0].index, ...cuts.sort((a, b) => a - b), s.points.at(-1)!.index + 1];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const inside = s.points.filter((p) => p.index >= bounds[i] && p.index < bounds[i + 1]);
    if (inside.length === 0) continue;
    const mean = inside.reduce((a, p) => a + p.value, 0) / inside.length;
    out.push([inside[0].index, mean], [inside.at(-1)!.index, mean]);
  }
  return out;
}

/** Every series' trend chart, searched ones first. */
export function trendCharts(check: HistoryCheck): string[] {
  const ordered = [...check.series.filter((s) => s.searched), ...check.series.filter((s) => !s.searched)];
  return ordered.filter((s) => s.points.length > 0).map((s) => trendChart(check, s));
}

/** The change points as table rows, newest first. */
export function changePointRows(check: HistoryCheck): string {
  return [...check.change_points]
    .sort((a, b) => b.index - a.index)
    .map(
      (c) =>
        `<tr><td>${esc(c.label)}</td><td class="n">${c.index}</td><td>${esc(c.date.slice(0, 10))}</td><td>${esc((c.commit ?? '—').slice(0, 12))}</td><td class="n">${c.before} → ${c.after} ${esc(c.unit)}</td><td class="n ${c.direction === 'worse' ? 'fail' : 'pass'}">${c.change >= 0 ? '+' : ''}${Math.round(c.change * 1000) / 10} %</td><td class="n">${c.p_value}</td></tr>`,
    )
    .join('\n');
}

/** The history's section of an HTML report: since when each metric moved, the change points, the trends. */
export function historySection(check: HistoryCheck): string {
  const s = check.settings;
  const since = sinceWhenLines(check, []).map((l) => `<li>${esc(l)}</li>`);
  return `<h2>History: ${check.analysed} nights</h2>
<p class="sub">Change points by E-divisive means with a permutation test (${s.permutations} permutations, seed ${s.seed}), at a false-alarm rate of ${s.false_alarm_rate} over the ${check.series.filter((x) => x.searched).length} metrics searched; changes under ${s.min_change_pct} % are not reported; a worse one among the latest ${s.fail_nights} nights fails.${check.other_specs > 0 ? ` ${check.other_specs} nights of other specs are left out.` : ''}</p>
${since.length > 0 ? `<ul>${since.join('\n')}</ul>` : ''}
${
  check.change_points.length > 0
    ? `<table class="change-points">
<tr><th>Metric</th><th>Night</th><th>Date</th><th>Commit</th><th>Mean before → after</th><th>Change</th><th>p-value</th></tr>
${changePointRows(check)}
</table>`
    : '<p>No change points.</p>'
}
<div class="charts">
${trendCharts(check).join('\n')}
</div>`;
}
