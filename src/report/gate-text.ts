import type { GateReport } from '../gate/types.js';
import type { Result } from '../result/types.js';
import { explainRules } from './explain.js';
import { gateRows, noiseSourceLine } from './format.js';
import { maxOf } from '../numbers.js';

/** The gate report for a terminal: the verdict, its reasons, and one aligned line per rule. */
export function renderGateText(report: GateReport, baseline: Result | null = null, current: Result | null = null): string {
  const rows = gateRows(report);
  const header = {
    status: 'status',
    metric: 'metric',
    baseline: 'baseline',
    current: 'current',
    change: 'change',
    limit: 'rule',
    detects: 'would catch',
  };
  const cols = ['status', 'metric', 'baseline', 'current', 'change', 'limit', 'detects'] as const;
  const table = [header, ...rows];
  const width = Object.fromEntries(cols.map((c) => [c, maxOf(table.map((r) => r[c].length))]));
  const line = (r: (typeof table)[number]) =>
    cols
      .map((c) => (c === 'baseline' || c === 'current' ? r[c].padStart(width[c]) : r[c].padEnd(width[c])))
      .join('  ')
      .trimEnd();
  return [
    `Verdict  ${report.verdict.toUpperCase()}${report.has_baseline ? '' : ' (no baseline)'}`,
    ...report.reasons.map((r) => `  ${r}`),
    ...(current ? explainRules(report, baseline, current).map((w) => `  why: ${w}`) : []),
    '',
    line(header),
    ...rows.map(line),
    ...(noiseSourceLine(report) ? ['', noiseSourceLine(report)] : []),
  ].join('\n');
}
