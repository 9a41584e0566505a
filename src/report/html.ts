import type { GateReport } from '../gate/types.js';

import type { Result } from '../result/types.js';
import { latencyCharts, serverCharts, timeseriesCharts } from './charts.js';
import { explainRules } from './explain.js';
import { networkText, serverLatencyText, serverText } from './server-format.js';
import { escapeHtml as esc } from './escape.js';
import { gateRows, noiseNote, STATUS_ICON, VERDICT_ICON } from './format.js';
import { patternHtml } from './pattern-report.js';
import type { HistoryCheck } from '../history/analyze.js';
import { historySection } from './history-charts.js';

/** The reports' shared stylesheet (the sweep report uses it too). */
export const REPORT_STYLE = `
body{font:14px/1.45 system-ui,sans-serif;color:#1f2328;max-width:1340px;margin:24px auto;padding:0 16px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
td.n{text-align:right;white-space:nowrap}th{background:#f6f8fa}.sub{color:#57606a;font-size:12px}
.pass{color:#1a7f37}.fail{color:#cf222e}.warn{color:#9a6700}.inconclusive{color:#8250df}
.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{border:1px solid #eaeef2;border-radius:6px;max-width:100%;height:auto}
`;

/**
 * One self-contained HTML file for a human to open: verdict, rules, latency-by-percentile charts
 * of baseline vs current from the histograms, per-second series, validity, errors, definitions.
 * Inline CSS and SVG only: no scripts, nothing fetched.
 */
export function renderHtml(report: GateReport, baseline: Result | null, current: Result, history?: HistoryCheck): string {
  const verdict = report.verdict;
  const rows = gateRows(report)
    .map(
      (r) =>
        `<tr><td>${esc(r.metric)}</td><td class="n">${esc(r.baseline)}</td><td class="n">${esc(r.current)}</td><td class="n">${esc(r.change)}${r.noise ? `<br><span class="sub">noise ${esc(r.noise)}</span>` : ''}</td><td>${esc(r.limit)}</td><td class="${r.status}">${STATUS_ICON[r.status]} ${r.status}</td><td>${esc(r.reason)}</td></tr>`,
    )
    .join('\n');
  const checks = report.checks
    .map(
      (c) =>
        `<tr><td>${c.scope}</td><td>${esc(c.name)}</td><td class="${c.ok ? 'pass' : 'fail'}">${c.ok ? '✅ ok' : '❌ failed'}</td><td>${esc(c.message)}</td></tr>`,
    )
    .join('\n');
  const errors = current.requests.error_samples
    .map((e) => `<tr><td>${esc(e.class)}</td><td class="n">${e.count}</td><td>${esc(e.detail || '—')}</td></tr>`)
    .join('\n');
  const why = explainRules(report, baseline, current)
    .map((w) => `<li><b>Why</b>: ${esc(w)}</li>`)
    .join('\n');
  const serverLines = [networkText(current), serverText(current), ...serverLatencyText(current)]
    .filter((x): x is string => x !== null)
    .map((l) => `<li>${esc(l)}</li>`)
    .join('\n');
  const definitions = Object.entries(current.definitions)
    .map(([k, v]) => `<dt><b>${esc(k)}</b></dt><dd>${esc(v)}</dd>`)
    .join('\n');

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>loadgate ${verdict.toUpperCase()} — ${esc(current.spec.name)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<h1 class="${verdict}">${VERDICT_ICON[verdict]} loadgate: ${verdict.toUpperCase()} — ${esc(current.spec.name)}</h1>
<p>${runLine('Current', current)}<br>${baseline ? runLine('Baseline', baseline) : '<b>No baseline</b>: only absolute (SLO) rules were judged.'}</p>
<ul>
${report.reasons.map((r) => `<li>${esc(r)}</li>`).join('\n')}
${why}
</ul>
<h2>Rules</h2>
<table>
<tr><th>Metric</th><th>Baseline</th><th>Current</th><th>Change</th><th>Rule</th><th>Status</th><th>Why</th></tr>
${rows}
</table>
<p class="sub">${esc(noiseNote(report))}</p>
<h2>Latency by percentile</h2>
<p class="sub">Computed from the HdrHistograms${baseline ? '; dashed: baseline, solid: current' : ''}. The x axis stretches the tail: p90, p99 and p99.9 are one step apart.</p>
<div class="charts">
${latencyCharts(baseline, current).join('\n')}
</div>
${history ? historySection(history) : ''}
<h2>Per-second time series</h2>
<div class="charts">
${timeseriesCharts(baseline, current).join('\n')}
${serverCharts(baseline, current).join('\n')}
</div>
${patternHtml(current)}
${serverLines ? `<h2>Server and network (current run)</h2>\n<ul>\n${serverLines}\n</ul>` : ''}
<h2>Validity and comparability</h2>
<table>
<tr><th>Run</th><th>Check</th><th>Result</th><th>Detail</th></tr>
${checks}
</table>
${errors ? `<h2>Errors (current run)</h2>\n<table>\n<tr><th>Class</th><th>Count</th><th>Detail</th></tr>\n${errors}\n</table>` : ''}
<h2>Definitions</h2>
<dl>
${definitions}
</dl>
</body>
</html>
`;
}

function runLine(label: string, r: Result): string {
  const merged = r.merge;
  const from = merged ? `, merged from ${merged.merged_from} ${merged.mode}` : '';
  return `<b>${label}</b>: model ${esc(r.target.model)} at ${esc(r.target.url)} · ${esc(r.load.label)} · window ${r.load.window_s} s, ${r.requests.window.scheduled} requests${from} · ${esc(r.created_at)}`;
}
