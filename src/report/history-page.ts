import type { HistoryCheck } from '../history/analyze.js';
import { sinceText } from '../history/since.js';
import { escapeHtml as esc } from './escape.js';
import { trendCharts } from './history-charts.js';
import { REPORT_STYLE } from './html.js';

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
  const since = check.change_points.filter((c) => c.recent).map((c) => `<li>${esc(sinceText(c))}</li>`);
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

/**
 * A self-contained page of the history (inline CSS and SVG, no scripts, nothing fetched), to
 * publish next to the history file as github-action-benchmark publishes its index.html.
 */
export function renderHistoryPage(check: HistoryCheck): string {
  const title = `loadgate history — ${check.spec_name ?? 'no nights yet'}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<h1 class="${check.verdict}">${esc(title)}</h1>
<p>${check.verdict === 'fail' ? '❌ A metric got worse among the latest nights.' : '✅ No metric got worse among the latest nights.'}</p>
${historySection(check)}
</body>
</html>
`;
}
