import type { GateReport } from '../gate/types.js';

import { chartedMetrics, METRICS, type MetricName } from '../metrics/definitions.js';
import type { Result } from '../result/types.js';
import { escapeMarkdown as md } from './escape.js';
import { explainRules } from './explain.js';
import { connectionsText, gateRows, noiseNote, noiseSourceLine, STATUS_ICON, VERDICT_ICON } from './format.js';
import { patternMarkdown } from './pattern-report.js';
import { sessionsMarkdown } from './sessions-report.js';
import { networkText, serverLatencyText, serverText } from './server-format.js';
import { appendAll } from '../numbers.js';

/**
 * The gate report as GitHub-flavoured markdown, for a job summary or a pull-request comment:
 * verdict, the rules table, mermaid charts GitHub renders, validity, errors and definitions.
 */
export function renderMarkdown(report: GateReport, baseline: Result | null, current: Result): string {
  const out: string[] = [];
  out.push(`### ${VERDICT_ICON[report.verdict]} loadgate: ${report.verdict.toUpperCase()} — ${md(current.spec.name)}`, '');
  out.push(`${runLine('Current', current)}  `);
  out.push(baseline ? runLine('Baseline', baseline) : '**No baseline**: only absolute (SLO) rules were judged.', '');
  appendAll(
    out,
    report.reasons.map((r) => `- ${md(r)}`),
  ).push('');
  const why = explainRules(report, baseline, current);
  if (why.length > 0)
    appendAll(
      out,
      why.map((w) => `- **Why**: ${md(w)}`),
    ).push('');

  out.push('| Metric | Baseline | Current | Change | Rule | Status |', '|:--|--:|--:|--:|:--|:--|');
  for (const r of gateRows(report)) {
    const change = r.noise ? `${md(r.change)}<br><sub>noise ${md(r.noise)}</sub>` : md(r.change);
    out.push(
      `| ${md(r.metric)} | ${md(r.baseline)} | ${md(r.current)} | ${change} | ${md(r.limit)} | ${STATUS_ICON[r.status]} ${r.status}${r.detects ? `<br><sub>would catch ${md(r.detects)}</sub>` : ''} |`,
    );
  }
  const sources = noiseSourceLine(report);
  out.push('');
  if (sources) out.push(`**${md(sources)}**`, '');
  out.push(`<sub>${md(noiseNote(report))}</sub>`, '');

  appendAll(out, percentileChart('Time to first token and end-to-end latency (ms)', chartedKeys('request'), baseline, current));
  appendAll(out, percentileChart('Per-token latency (ms)', chartedKeys('token'), baseline, current));
  appendAll(out, patternMarkdown(current));
  appendAll(out, sessionsMarkdown(current));

  const failing = report.checks.filter((c) => !c.ok);
  out.push('#### Validity', '');
  out.push(
    failing.length === 0 ? `All ${report.checks.length} checks passed.` : `${failing.length} of ${report.checks.length} checks failed:`,
    '',
  );
  if (failing.length > 0)
    appendAll(
      out,
      failing.map((c) => `- ❌ **${c.scope}** ${md(c.name)}: ${md(c.message)}`),
    ).push('');
  out.push('<details><summary>All checks</summary>', '', '| Run | Check | OK | Detail |', '|:--|:--|:--|:--|');
  appendAll(
    out,
    report.checks.map((c) => `| ${c.scope} | ${md(c.name)} | ${c.ok ? '✅' : '❌'} | ${md(c.message)} |`),
  ).push('', '</details>', '');

  const connections = connectionsText(current);
  if (connections !== null) out.push('#### Connections (current run)', '', md(connections), '');
  const server = serverText(current);
  const network = networkText(current);
  if (server !== null || network !== null) {
    out.push('#### Server and network (current run)', '');
    if (network !== null) out.push(`- **Network**: ${md(network)}`);
    if (server !== null) appendAll(out, [`- **Server**: ${md(server)}`, ...serverLatencyText(current).map((l) => `- ${md(l)}`)]);
    out.push('');
  }
  if (current.requests.error_samples.length > 0) {
    out.push('#### Errors (current run)', '', '| Class | Count | Detail |', '|:--|--:|:--|');
    appendAll(
      out,
      current.requests.error_samples.map((e) => `| ${md(e.class)} | ${e.count} | ${md(e.detail || '—')} |`),
    ).push('');
  }

  out.push('<details><summary>Definitions</summary>', '');
  appendAll(
    out,
    Object.entries(current.definitions).map(([k, v]) => `- **${md(k)}**: ${md(v)}`),
  ).push('', '</details>', '');
  return out.join('\n');
}

function runLine(label: string, r: Result): string {
  const merged = r.merge;
  const from = merged ? `, merged from ${merged.merged_from} ${merged.mode}` : '';
  return `**${label}**: model ${md(r.target.model)} · ${md(r.load.label)} · window ${r.load.window_s} s, ${r.requests.window.scheduled} requests${from} · ${md(r.created_at)}`;
}

const CHART_PERCENTILES = ['p50', 'p90', 'p95', 'p99'] as const;
const LABEL = Object.fromEntries(METRICS.map((m) => [m.key, m.label])) as Record<MetricName, string>;

/**
 * A mermaid xychart-beta of latency percentiles: bars for the baseline, a line for the current
 * run (xychart has no legend, so the caption says which is which). Labels are our own strings.
 */
/** The keys of the metrics the table gives a percentile chart of this kind. */
const chartedKeys = (chart: 'request' | 'token'): MetricName[] => chartedMetrics(chart).map((m) => m.key);

function percentileChart(title: string, metrics: MetricName[], baseline: Result | null, current: Result): string[] {
  const shown = metrics.filter((m) => current.metrics[m] && (!baseline || baseline.metrics[m]));
  if (shown.length === 0) return [];
  const labels = shown.flatMap((m) => CHART_PERCENTILES.map((p) => `"${LABEL[m]} ${p}"`));
  const values = (r: Result) => `[${shown.flatMap((m) => CHART_PERCENTILES.map((p) => r.metrics[m]![p])).join(', ')}]`;
  return [
    `#### ${title}`,
    '',
    '```mermaid',
    'xychart-beta',
    `  title "${title}"`,
    `  x-axis [${labels.join(', ')}]`,
    '  y-axis "ms"',
    ...(baseline ? [`  bar ${values(baseline)}`, `  line ${values(current)}`] : [`  bar ${values(current)}`]),
    '```',
    '',
    baseline ? '<sub>Bars: baseline · line: current.</sub>' : '<sub>Current run.</sub>',
    '',
  ];
}
