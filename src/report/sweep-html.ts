import type { SweepDocument } from '../capacity/document.js';
import type { GateReport } from '../gate/types.js';
import { escapeHtml as esc } from './escape.js';
import { gateRows, STATUS_ICON, VERDICT_ICON } from './format.js';
import { REPORT_STYLE } from './html.js';
import { findings, POINT_COLUMNS, pointRow } from './sweep.js';
import { latencyCharts, throughputCharts } from './sweep-charts.js';

/**
 * A sweep as one self-contained HTML page: findings with their rules, the gate (when judged
 * against a baseline sweep), throughput and latency against offered load with S, the knee and
 * capacity marked, and one table row per point. Inline CSS and SVG only: no scripts, nothing fetched.
 */
export function renderSweepHtml(d: SweepDocument, gate: GateReport | null): string {
  const title = gate ? `${VERDICT_ICON[gate.verdict]} loadgate sweep: ${gate.verdict.toUpperCase()}` : 'loadgate sweep';
  const f = findings(d)
    .map(
      (x) =>
        `<tr><td>${esc(x.label)}</td><td>${esc(x.value)}${x.note ? `<br><span class="sub">${esc(x.note)}</span>` : ''}</td><td class="sub">${esc(x.rule)}</td><td><code>${esc(x.key)}</code></td></tr>`,
    )
    .join('\n');
  const rules = gate
    ? `<h2>Capacity gate</h2>\n<ul>${gate.reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>\n<table>\n<tr><th>Metric</th><th>Baseline</th><th>Current</th><th>Change</th><th>Rule</th><th>Status</th><th>Why</th></tr>\n${gateRows(
        gate,
      )
        .map(
          (r) =>
            `<tr><td>${esc(r.metric)}</td><td class="n">${esc(r.baseline)}</td><td class="n">${esc(r.current)}</td><td class="n">${esc(r.change)}</td><td>${esc(r.limit)}</td><td class="${r.status}">${STATUS_ICON[r.status]} ${r.status}</td><td>${esc(r.reason)}</td></tr>`,
        )
        .join('\n')}\n</table>`
    : '';
  const rows = d.analysis.points
    .map(
      (p) =>
        `<tr>${pointRow(p)
          .map((c, i) => `<td${i >= 3 && i <= 14 ? ' class="n"' : ''}>${esc(c)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n');
  const over = d.analysis.oversubscribed.length
    ? `<p><b>Little's law above the batch slots:</b></p><ul>${d.analysis.oversubscribed.map((o) => `<li>${esc(o)}</li>`).join('')}</ul>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} — ${esc(d.spec.name)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<h1${gate ? ` class="${gate.verdict}"` : ''}>${esc(title)} — ${esc(d.spec.name)}</h1>
<p><b>${esc(d.label)}</b> · model ${esc(d.target.model)} at ${esc(d.target.url)} · ${d.points.length} points · ${esc(d.created_at)}${d.interrupted ? ' · <b class="fail">interrupted</b>: the points measured so far' : ''}<br>Stopped: ${esc(d.stopped_because)}</p>
${rules}
<h2>Findings</h2>
<table>
<tr><th>Finding</th><th>Value</th><th>Rule</th><th>Key</th></tr>
${f}
</table>
${over}
<h2>Throughput vs offered load</h2>
<div class="charts">
${throughputCharts(d).join('\n')}
</div>
<h2>Latency vs offered load</h2>
<div class="charts">
${latencyCharts(d).join('\n')}
</div>
<h2>Points</h2>
<table>
<tr>${POINT_COLUMNS.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>
${rows}
</table>
</body>
</html>
`;
}
