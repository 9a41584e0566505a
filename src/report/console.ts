import type { GateReport } from '../gate/types.js';
import type { CountSummary } from '../metrics/histogram.js';
import { METRICS, percentileLabel } from '../metrics/definitions.js';
import { appendAll, num } from '../numbers.js';
import type { Result } from '../result/types.js';
import { escapeLogLine } from './escape.js';
import { explainRules } from './explain.js';
import { connectionsText } from './format.js';
import { patternConsole } from './pattern-report.js';
import { sessionsConsole } from './sessions-report.js';
import { networkText, serverLatencyText, serverText } from './server-format.js';

const COLS = ['p50', 'p90', 'p95', 'p99', 'p999', 'max'] as const;

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)} %`);
const mean = (s: CountSummary | null) => (s ? num(s.mean) : 'n/a');
const busy = (c: Result['generator']['window_cpu']) => (c ? `thread busy ${(c.busy * 100).toFixed(0)} % of a core in the window · ` : '');

/** The generator's bound on its own timestamps' lateness, where the result has one. */
function timestampErrorLine(e: Result['generator']['timestamp_error_ms']): string[] {
  if (e === undefined) return [];
  if (e === null) return ['Timestamps  no error bound: no socket read was timed in the window'];
  // "a / b / c ms at p50 / p90 / p99", with the p99.9 where the figures have one.
  const figures = (f: { p50: number; p90: number; p99: number; p999?: number }) => {
    const values = f.p999 === undefined ? [f.p50, f.p90, f.p99] : [f.p50, f.p90, f.p99, f.p999];
    const labels = ['p50', 'p90', 'p99', 'p99.9'].slice(0, values.length);
    return `${values.map((v) => num(v)).join(' / ')} ms at ${labels.join(' / ')}`;
  };
  const chunk = e.chunk ? [`            a chunk may be stamped late by up to ${figures(e.chunk)}`] : [];
  const quantiles = e.e2e
    ? [
        `Timestamps  TTFT quantiles may be moved by up to ${figures(e)} (the generator's own bound)`,
        `            E2E quantiles by up to ${figures(e.e2e)}`,
      ]
    : [`Timestamps  TTFT and E2E quantiles may be moved by up to ${figures(e)} (the generator's own bound)`];
  return [...quantiles, ...chunk];
}

function latencyTable(r: Result): string[] {
  const head =
    'Latency (ms)'.padEnd(20) + COLS.map((c) => (c === 'max' ? c : percentileLabel(c)).padStart(9)).join('') + 'count'.padStart(9);
  const lines = [head];
  for (const { key, label } of METRICS) {
    const s = r.metrics[key];
    if (!s && key === 'time_to_first_answer_ms') continue;
    lines.push(label.padEnd(20) + (s ? COLS.map((c) => num(s[c]).padStart(9)).join('') + String(s.count).padStart(9) : '  no samples'));
  }
  return lines;
}

/** The human-readable run report: what was offered, what came back, whether to trust it, and the verdict. */
export function renderConsoleReport(r: Result, gate: GateReport, baseline: Result | null = null): string {
  const c = r.requests.window.by_class;
  const out = [
    escapeLogLine(
      `loadgate ${r.tool.version} — "${r.spec.name}" against ${r.target.simulator ? 'the embedded simulator' : r.target.url} (${r.target.api}, model ${r.target.model})`,
    ),
    `${r.load.label} · window ${r.load.window_s} s (warmup ${r.load.warmup_s} s, cooldown ${r.load.cooldown_s} s)${r.load.interrupted ? ' · INTERRUPTED' : ''}`,
    '',
    `Requests    ${r.requests.window.scheduled} in window: ok ${c.ok} · 429 ${c.http_429} · 4xx ${c.http_4xx} · 5xx ${c.http_5xx} · connect ${c.connect_error} · timeout ${c.timeout} · stream ${c.stream_error} · dropped ${c.dropped}${c.cancelled ? ` · cancelled ${c.cancelled}` : ''}`,
    `Rate        offered ${r.load.offered_rate_per_s} req/s · achieved ${r.load.achieved_rate_per_s} req/s`,
    '',
    ...latencyTable(r),
    '',
    `Throughput  ${r.throughput.output_tokens_per_s} output tok/s · ${r.throughput.total_tokens_per_s} total tok/s · ${r.throughput.requests_per_s} req/s completed`,
    `Goodput     ${r.goodput.rate_per_s} req/s, ${pct(r.goodput.fraction)} of requests met TTFT ≤ ${r.goodput.slo.ttft_ms} ms, TPOT ≤ ${r.goodput.slo.tpot_ms} ms, E2E ≤ ${r.goodput.slo.e2e_ms} ms`,
    `Workload    input tokens mean requested ${mean(r.workload.input_tokens.requested)} / delivered ${mean(r.workload.input_tokens.delivered)} · output ${mean(r.workload.output_tokens.requested)} / ${mean(r.workload.output_tokens.delivered)} (counted from ${r.workload.token_source})`,
    `Generator   event-loop delay p99 ${r.generator.event_loop_delay_ms.p99.toFixed(2)} ms · ${busy(r.generator.window_cpu)}process CPU ${(r.generator.cpu_utilization * 100).toFixed(0)} % of a core · pool wait p99 ${r.generator.pool_wait_ms?.p99.toFixed(2) ?? 'n/a'} ms · Little's law ratio ${r.littles_law.ratio ?? 'n/a'}`,
    ...timestampErrorLine(r.generator.timestamp_error_ms),
  ];
  const connections = connectionsText(r);
  if (connections !== null) out.push(`Connections ${connections}`);
  appendAll(out, patternConsole(r));
  appendAll(out, sessionsConsole(r).map(escapeLogLine));
  const network = networkText(r);
  if (network !== null) out.push(`Network     ${network}`);
  const server = serverText(r);
  if (server !== null) appendAll(out, [`Server      ${escapeLogLine(server)}`, ...serverLatencyText(r).map((l) => `            ${l}`)]);
  if (r.requests.error_samples.length > 0) {
    out.push('', 'Errors');
    for (const e of r.requests.error_samples.slice(0, 5))
      out.push(escapeLogLine(`  ${e.class} ×${e.count}${e.detail ? `: ${e.detail}` : ''}`));
  }
  out.push('', 'Validity');
  for (const v of r.validity.checks) out.push(`  ${v.ok ? 'ok  ' : 'FAIL'} ${v.name}: ${v.message}`);
  out.push('', `Verdict     ${gate.verdict.toUpperCase()}`);
  for (const reason of gate.reasons) out.push(`  ${reason}`);
  for (const why of explainRules(gate, baseline, r)) out.push(`  why: ${why}`);
  out.push(
    '',
    'TTFT and E2E are measured from the intended send time; TPOT = (last − first token) / (tokens − 1); ITL = gaps between content chunks.',
  );
  return out.join('\n');
}
