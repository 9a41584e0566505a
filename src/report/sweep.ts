import type { SweepDocument } from '../capacity/document.js';
import type { PointAnalysis } from '../capacity/types.js';
import type { GateReport } from '../gate/types.js';
import { escapeMarkdown as md } from './escape.js';
import { renderGateText } from './gate-text.js';
import { gateRows, STATUS_ICON, VERDICT_ICON } from './format.js';
import { appendAll } from '../numbers.js';

/*
 * A sweep's findings as display strings, shared by the console, markdown and HTML reports:
 * each number beside the rule that produced it. Unescaped: each renderer escapes for its format.
 */

const n = (v: number | null | undefined, unit = '') => (v === null || v === undefined ? '—' : `${Number(v.toPrecision(4))}${unit}`);
const pct = (v: number | null) => (v === null ? '—' : `${Number((v * 100).toPrecision(3))} %`);

export interface Finding {
  /** Key a script reads, e.g. analysis.knee.rate_per_s. */
  key: string;
  label: string;
  value: string;
  rule: string;
  note: string | null;
}

/** ", between 10.9 and 11.8 req/s" when a range is known; an open end reads "below" or "at least". */
function between(r: { lower: number | null; upper: number | null } | null | undefined, unit: string): string {
  if (!r || (r.lower === null && r.upper === null)) return '';
  if (r.lower === null) return `, below ${n(r.upper, unit)}`;
  if (r.upper === null) return `, at least ${n(r.lower, unit)}`;
  return `, between ${n(r.lower, '')} and ${n(r.upper, unit)}`;
}

export function findings(d: SweepDocument): Finding[] {
  const a = d.analysis;
  const unit = a.mode === 'open' ? ' req/s' : ' concurrent';
  const out: Finding[] = [
    {
      key: 'analysis.service_floor_ms',
      label: `Service floor S (${a.metric.toUpperCase()})`,
      value: `${n(a.service_floor_ms, ' ms')}${a.service_floor.rtt_ms !== null ? ` (p50 ${n(a.service_floor.p50_ms, ' ms')} − RTT ${n(a.service_floor.rtt_ms, ' ms')})` : ''}`,
      rule: a.service_floor.rule,
      note: a.service_floor.note,
    },
    {
      key: 'analysis.knee.rate_per_s',
      label: 'Knee',
      value:
        a.knee.point === null
          ? 'not found'
          : `${n(a.knee.rate_per_s, ' req/s')}${a.knee.concurrency !== null ? ` at concurrency ${a.knee.concurrency}` : ''}${between(a.knee.range, unit)} (p99 ${n(a.knee.p99_ms, ' ms')} ≤ ${n(a.knee.limit_ms, ' ms')})`,
      rule: a.knee.rule,
      note: a.knee.note,
    },
    {
      key: 'analysis.saturation.requests_per_s',
      label: 'Saturation throughput',
      value: `${n(a.saturation.requests_per_s, ' req/s')}${a.saturation.range ? `, between ${n(a.saturation.range.lower)} and ${n(a.saturation.range.upper, ' req/s')}` : ''}, ${n(a.saturation.output_tokens_per_s, ' output tok/s')}${a.saturation.reached ? '' : ' (not reached: a lower bound)'}`,
      rule: a.saturation.rule,
      note: null,
    },
    {
      key: 'analysis.capacity_at_slo.rate_per_s',
      label: `Capacity at SLO (goodput ≥ ${pct(a.capacity_at_slo.target)})`,
      value:
        a.capacity_at_slo.rate_per_s === null
          ? 'not met at any point'
          : `${n(a.capacity_at_slo.rate_per_s, ' req/s')}${a.capacity_at_slo.concurrency !== null ? ` at concurrency ${a.capacity_at_slo.concurrency}` : ''} (between ${n(a.capacity_at_slo.passing_load, unit)} passing and ${n(a.capacity_at_slo.failing_load, unit)} failing${a.capacity_at_slo.range && a.capacity_at_slo.range.upper !== a.capacity_at_slo.failing_load ? `; first failing beyond noise ${n(a.capacity_at_slo.range.upper, unit)}` : ''})`,
      rule: a.capacity_at_slo.rule,
      note: a.capacity_at_slo.note,
    },
  ];
  if (d.sizing) {
    const s = d.sizing;
    out.push(
      {
        key: 'sizing.replicas',
        label: `Replicas for ${n(s.peak_rate_per_s, ' req/s')} peak`,
        value: String(s.replicas),
        rule: s.replicas_formula,
        note: s.replicas_at_slo_formula && `at SLO: ${s.replicas_at_slo_formula}`,
      },
      {
        key: 'sizing.kv_sequences',
        label: 'KV-resident sequences (mean)',
        value: String(s.kv_sequences),
        rule: s.kv_sequences_formula,
        note: `W from point ${s.operating_point.point + 1}: ${s.operating_point.why}`,
      },
      {
        key: 'sizing.kv_sequences_p99',
        label: 'KV-resident sequences (p99-safe)',
        value: String(s.kv_sequences_p99),
        rule: s.kv_sequences_p99_formula,
        note: null,
      },
      { key: 'sizing.timeout_ms', label: 'Client timeout', value: n(s.timeout_ms, ' ms'), rule: s.timeout_formula, note: null },
    );
  }
  return out;
}

export const POINT_COLUMNS = [
  '#',
  'role',
  'load',
  'offered req/s',
  'completed req/s',
  'achieved',
  'output tok/s',
  'p50 ms',
  'p90 ms',
  'p99 ms',
  'E2E mean ms',
  'goodput',
  'ρ',
  'L = λW',
  'in flight mean / peak',
  'past saturation',
  'valid',
] as const;

export function pointRow(p: PointAnalysis): string[] {
  return [
    String(p.index + 1),
    p.role,
    p.mode === 'open' ? `${n(p.load)} req/s` : `${p.load} concurrent (closed loop)`,
    n(p.offered_rate_per_s),
    n(p.requests_per_s),
    pct(p.achieved_fraction),
    n(p.output_tokens_per_s),
    n(p.latency_ms.p50),
    n(p.latency_ms.p90),
    n(p.latency_ms.p99),
    n(p.e2e_ms.mean),
    pct(p.goodput_fraction),
    pct(p.utilization),
    n(p.littles_law.predicted_in_flight),
    `${n(p.littles_law.mean_in_flight)} / ${n(p.littles_law.peak_in_flight)}${p.littles_law.oversubscribed ? ' (oversubscribed)' : ''}`,
    p.saturated_because ?? 'no',
    p.interrupted ? 'interrupted' : p.valid ? 'yes' : 'no',
  ];
}

const headline = (d: SweepDocument) =>
  `loadgate sweep — ${d.spec.name}: ${d.label}, ${d.points.length} points, model ${d.target.model} at ${d.target.url}${d.interrupted ? ' (INTERRUPTED: the points measured so far)' : ''}`;

/** For the terminal: findings with their rules, Little's law warnings, then the gate when there is one. */
export function renderSweepText(d: SweepDocument, gate: GateReport | null): string {
  const lines = [headline(d), `Stopped: ${d.stopped_because}`, ''];
  for (const f of findings(d)) {
    lines.push(`${f.label.padEnd(36)} ${f.value}`, `${''.padEnd(36)} rule: ${f.rule}`);
    if (f.note) lines.push(`${''.padEnd(36)} note: ${f.note}`);
  }
  if (d.analysis.oversubscribed.length > 0)
    appendAll(lines, ['', "Little's law (L = λ·W) above the batch slots:", ...d.analysis.oversubscribed.map((o) => `  ${o}`)]);
  if (gate) lines.push('', renderGateText(gate));
  return lines.join('\n');
}

/** GitHub-flavoured markdown: findings table, gate (when judged), one row per point. */
export function renderSweepMarkdown(d: SweepDocument, gate: GateReport | null): string {
  const out: string[] = [];
  const title = gate ? `${VERDICT_ICON[gate.verdict]} loadgate sweep: ${gate.verdict.toUpperCase()}` : '📈 loadgate sweep';
  out.push(`### ${title} — ${md(d.spec.name)}`, '', md(headline(d)), '', `Stopped: ${md(d.stopped_because)}`, '');
  if (gate) {
    appendAll(out, [
      ...gate.reasons.map((r) => `- ${md(r)}`),
      '',
      '| Metric | Baseline | Current | Change | Rule | Status | Why |',
      '|:--|--:|--:|--:|:--|:--|:--|',
    ]);
    for (const r of gateRows(gate))
      out.push(
        `| ${md(r.metric)} | ${md(r.baseline)} | ${md(r.current)} | ${md(r.change)} | ${md(r.limit)} | ${STATUS_ICON[r.status]} ${r.status} | ${md(r.reason)} |`,
      );
    out.push('');
  }
  out.push('| Finding | Value | Rule | Key |', '|:--|:--|:--|:--|');
  for (const f of findings(d))
    out.push(`| ${md(f.label)} | ${md(f.value)}${f.note ? `<br><sub>${md(f.note)}</sub>` : ''} | ${md(f.rule)} | \`${f.key}\` |`);
  out.push('');
  if (d.analysis.oversubscribed.length > 0)
    appendAll(out, ["**Little's law above the batch slots:**", '', ...d.analysis.oversubscribed.map((o) => `- ${md(o)}`), '']);
  out.push(`#### Points (${md(d.label)})`, '', `| ${POINT_COLUMNS.join(' | ')} |`, `|${POINT_COLUMNS.map(() => '--').join('|')}|`);
  for (const p of d.analysis.points) out.push(`| ${pointRow(p).map(md).join(' | ')} |`);
  out.push('');
  return out.join('\n');
}
