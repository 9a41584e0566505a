import { confText, num, pctText } from '../numbers.js';
import type { GateReport, RuleOutcome, RuleStatus, RuleUnit, Verdict } from '../gate/types.js';
import type { Result } from '../result/types.js';

/*
 * The gate's rules (and a run's connection facts) as display strings, shared by the markdown, HTML and text reports.
 * Unescaped: each renderer escapes for its own format.
 */

export const STATUS_ICON: Record<RuleStatus, string> = { pass: '✅', fail: '❌', warn: '⚠️', inconclusive: '❔' };
export const VERDICT_ICON: Record<Verdict, string> = { pass: '✅', fail: '❌', inconclusive: '❔' };

function formatValue(v: number | null, unit: RuleUnit): string {
  if (v === null) return 'no data';
  return unit === 'fraction' ? pctText(v) : `${num(v)} ${unit}`;
}

/** A change in the rule's own terms: ms and % for latency, % for throughput, pp for shares. */
function formatChange(r: RuleOutcome, abs: number): string {
  if (r.unit === 'fraction') return `${num(abs * 100, true)} pp`;
  const rel = r.baseline ? abs / r.baseline : null;
  if (r.unit === 'ms') return `${num(abs, true)} ms${rel === null ? '' : ` (${pctText(rel, true)})`}`;
  return rel === null ? `${num(abs, true)} ${r.unit}` : pctText(rel, true);
}

function formatInterval(r: RuleOutcome, lower: number, upper: number): string {
  if (r.unit === 'fraction') return `${num(lower * 100, true)} … ${num(upper * 100, true)} pp`;
  if (r.unit === 'ms' || !r.baseline) return `${num(lower, true)} … ${num(upper, true)} ${r.unit}`;
  return `${pctText(lower / r.baseline, true)} … ${pctText(upper / r.baseline, true)}`;
}

export interface GateRow {
  status: RuleStatus;
  metric: string;
  baseline: string;
  current: string;
  change: string;
  /** The noise interval of the change, empty when the rule has none. */
  noise: string;
  limit: string;
  /** The smallest change this comparison would have caught (rules against the baseline), e.g. "≥ +14 %"; empty when none. */
  detects: string;
  reason: string;
}

/** "≥ +14 % (+23 ms)" for a latency rise, "≥ −8.0 %" for a throughput fall, "≥ +1.5 pp" for an error-rate rise. */
function formatDetectable(r: RuleOutcome): string {
  // Said of a rule that did not fail: how large a change it would have caught.
  if (!r.mde || r.status === 'fail') return '';
  if (r.unit === 'fraction') return `≥ ${num(r.mde.abs * 100, true)} pp`;
  if (r.mde.rel === null) return `≥ ${num(r.mde.abs, true)} ${r.unit}`;
  return r.unit === 'ms' ? `≥ ${pctText(r.mde.rel, true)} (${num(r.mde.abs, true)} ms)` : `≥ ${pctText(r.mde.rel, true)}`;
}

const SOURCE_WORDS: Record<string, string> = {
  bootstrap: 'bootstrap of the histograms (sampling noise within each run)',
  segments: 'window segments (slow drift within a run)',
  replicates: 'replicate spread (between-run CV of merged replicates)',
  calibration: 'calibration file (between-run CV from loadgate calibrate)',
  assumed: 'an assumed between-run CV for latency percentiles (gate.noise.assumed_cv)',
};

/** One line naming the noise sources the verdict used, and what is missing when between-run spread was not known. */
export function noiseSourceLine(report: GateReport): string {
  const sources = report.noise.sources ?? [];
  if (!report.has_baseline || sources.length === 0) return '';
  const used = sources.map((s) => SOURCE_WORDS[s] ?? s).join('; ');
  const cal = report.noise.calibration
    ? ` (calibration of ${report.noise.calibration.replicates} runs, ${report.noise.calibration.created_at})`
    : '';
  const missing =
    sources.includes('replicates') || sources.includes('calibration')
      ? ''
      : sources.includes('assumed')
        ? ' — no between-run spread was measured, so it was assumed: record the baseline with replicates ≥ 3 or run loadgate calibrate to measure it (an engine that drifts more than assumed can fail an A/A comparison; one that drifts less is judged more loosely than it could be)'
        : ' — no between-run spread was known: record the baseline with replicates ≥ 3 or run loadgate calibrate, or an A/A drift between runs can fail the gate';
  return `Noise model: ${used}${cal}${missing}.`;
}

export function gateRows(report: GateReport): GateRow[] {
  return report.rules.map((r) => ({
    status: r.status,
    metric: r.metric,
    baseline: r.kind === 'slo' && !report.has_baseline ? '—' : formatValue(r.baseline, r.unit),
    current: formatValue(r.current, r.unit),
    change: r.change ? formatChange(r, r.change.abs) : '—',
    noise: r.ci ? formatInterval(r, r.ci.lower, r.ci.upper) : '',
    limit: r.limit,
    detects: formatDetectable(r),
    reason: r.reason,
  }));
}

/** How to read the noise column, said once under each table. */
export function noiseNote(report: GateReport): string {
  const c = report.noise.confidence;
  return `Noise: each interval end is a one-sided ${confText(c)} bound (together a ${confText(2 * c - 1)} interval); a regression needs the bound beyond the allowed change, so a change within run-to-run noise never fails. ${report.noise.iterations} bootstrap iterations, seed ${report.noise.seed}.`;
}

/** What happened to connections, in one line; null when nothing worth saying did. */
export function connectionsText(r: Result): string | null {
  const ka = r.requests.keep_alive;
  const n = r.requests.reconnects ?? 0;
  const parts: string[] = [];
  if (ka?.disabled)
    parts.push(
      `${ka.reason ?? 'keep-alive disabled'} (it closed ${ka.server_closed} of ${ka.responses_observed} kept-alive connections right after a response), so each later request opened its own (connect time shows in pool wait)`,
    );
  if (n > 0) parts.push(`${n} request${n === 1 ? '' : 's'} re-sent on a new connection: the server had closed the reused one unanswered`);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** A markdown table with a left-aligned first column and right-aligned (numeric) others; cells are written as given. */
export function numberTable(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [
    `| ${head.join(' | ')} |`,
    `|:--|${head
      .slice(1)
      .map(() => '--:')
      .join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}
