import { existsSync } from 'node:fs';
import { calibrationFor } from '../gate/calibration.js';
import { compare } from '../gate/compare.js';
import { gateOf } from '../spec/gate-schema.js';
import type { GateReport } from '../gate/types.js';
import { renderGateText } from '../report/gate-text.js';
import { renderHtml } from '../report/html.js';
import { renderMarkdown } from '../report/markdown.js';
import { historyMarkdown } from '../report/history-markdown.js';
import type { HistoryCheck } from '../history/analyze.js';
import { isSweepDocument, readSweep, readJsonFile } from '../capacity/load.js';
import { compareSweeps } from '../capacity/gate.js';
import { readResult } from '../result/load.js';
import { writeSweepReports } from './sweep-command.js';
import { renderSweepText } from '../report/sweep.js';
import type { Result } from '../result/types.js';
import { checkOutputPaths, writeFileAtomic, type NamedPath } from '../result/write.js';
import { readSpec } from '../spec/load.js';
import { parseCommandArgs } from './args.js';
import { EXIT, UsageError } from './errors.js';

export const COMPARE_HELP = `Usage: loadgate compare BASELINE RESULT [options]

Judges RESULT against BASELINE (result files from loadgate run or merge, or two sweep
documents from loadgate sweep: capacity at SLO, knee, saturation, per sweep.gate): per-metric
regression rules with a noise test on the histograms, absolute SLO rules, and checks that
both runs are valid and comparable. Prints the verdict and every rule's outcome.

Options:
  --spec SPEC               take the gate rules from this spec's gate section
                            (default: the gate of the spec embedded in RESULT, else the defaults)
  --calibration FILE        between-run CVs of the deployment (loadgate calibrate): widen both
                            sides of every comparison (default: the gate's gate.calibration)
  --markdown FILE           also write the report as markdown (job summary, PR comment)
  --html FILE               also write a self-contained HTML report with charts
  --json                    print the gate report as JSON instead of text
  --allow-missing-baseline  if BASELINE does not exist, judge RESULT alone (SLO rules only)
  -h, --help                this help

Exit codes: 0 pass, 1 fail, 2 inconclusive, 3 error (missing or invalid file, bad spec, unwritable report).`;

/** The gate rules: the --spec file's, else those of the spec RESULT was run with. */
export function gateFor(specPath: string | undefined, current: Result) {
  return gateOf(specPath === undefined ? current.spec : readSpec(specPath).spec);
}

/** The report files are checked before anything is read or judged: writable, and none of them an input or the other. */
export function checkReportPaths(
  files: { markdown?: string; html?: string; spec?: string; calibration?: string },
  inputs: NamedPath[],
): void {
  checkOutputPaths(
    [
      { path: files.markdown, what: '--markdown' },
      { path: files.html, what: '--html' },
    ],
    [...inputs, { path: files.spec, what: '--spec' }, { path: files.calibration, what: '--calibration' }],
  );
}

/** Writes the requested report files and prints the verdict; shared with `loadgate report`. */
export function writeReports(
  report: GateReport,
  baseline: Result | null,
  current: Result,
  files: { markdown?: string; html?: string },
  history?: HistoryCheck,
): string[] {
  const written: string[] = [];
  if (files.markdown) {
    const trend = history ? `\n${historyMarkdown(history)}\n` : '';
    writeFileAtomic(files.markdown, `${renderMarkdown(report, baseline, current)}${trend}`, '--markdown');
    written.push(files.markdown);
  }
  if (files.html) {
    writeFileAtomic(files.html, renderHtml(report, baseline, current, history), '--html');
    written.push(files.html);
  }
  return written;
}

// eslint-disable-next-line @typescript-eslint/require-await -- every command has the async signature main() awaits
export async function compareCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('compare', argv, {
    spec: { type: 'string' },
    calibration: { type: 'string' },
    markdown: { type: 'string' },
    html: { type: 'string' },
    json: { type: 'boolean', default: false },
    'allow-missing-baseline': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) {
    process.stdout.write(`${COMPARE_HELP}\n`);
    return EXIT.pass;
  }
  if (positionals.length !== 2) throw new UsageError('loadgate compare takes a baseline and a result file; see loadgate compare --help');
  const [baselinePath, resultPath] = positionals as [string, string];
  checkReportPaths(values, [
    { path: baselinePath, what: 'BASELINE' },
    { path: resultPath, what: 'RESULT' },
  ]);
  const sweep = isSweepDocument(readJsonFile(resultPath));
  if (existsSync(baselinePath) && isSweepDocument(readJsonFile(baselinePath)) !== sweep)
    throw new UsageError(
      `${sweep ? baselinePath : resultPath} is a single result but ${sweep ? resultPath : baselinePath} is a sweep document; expected two results or two sweeps`,
    );
  if (sweep) return compareSweepFiles(baselinePath, resultPath, values);
  const current = readResult(resultPath);
  const baseline = values['allow-missing-baseline'] && !existsSync(baselinePath) ? null : readResult(baselinePath);
  const gate = gateFor(values.spec, current);
  const report = compare(baseline, current, gate, { calibration: calibrationFor(gate, values.calibration) });
  const written = writeReports(report, baseline, current, values);
  if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${renderGateText(report, baseline, current)}\n${written.map((f) => `Report written to ${f}\n`).join('')}`);
  return EXIT[report.verdict];
}

/** Sweep against baseline sweep: the capacity gate (src/capacity/gate.ts). */
function compareSweepFiles(
  baselinePath: string,
  resultPath: string,
  values: { markdown?: string; html?: string; json: boolean; 'allow-missing-baseline': boolean },
): number {
  const current = readSweep(resultPath);
  if (values['allow-missing-baseline'] && !existsSync(baselinePath)) {
    const written = writeSweepReports(current, null, values);
    process.stdout.write(
      `${renderSweepText(current, null)}\nno baseline sweep at ${baselinePath}: nothing judged\n${written.map((f) => `Report written to ${f}\n`).join('')}`,
    );
    return EXIT.inconclusive;
  }
  const report = compareSweeps(readSweep(baselinePath), current);
  const written = writeSweepReports(current, report, values);
  if (values.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${renderGateText(report)}\n${written.map((f) => `Report written to ${f}\n`).join('')}`);
  return EXIT[report.verdict];
}
