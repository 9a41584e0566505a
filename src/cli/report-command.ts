import { compare } from '../gate/compare.js';
import { isSweepDocument, readSweep, readJsonFile } from '../capacity/load.js';
import { compareSweeps } from '../capacity/gate.js';
import { readResult } from '../result/load.js';
import { writeSweepReports } from './sweep-command.js';
import { checkReportPaths, gateFor, writeReports } from './compare-command.js';
import { parseCommandArgs } from './args.js';
import { calibrationFor } from '../gate/calibration.js';
import { EXIT, UsageError } from './errors.js';
import { historyWithResult } from './history-command.js';

export const REPORT_HELP = `Usage: loadgate report RESULT [--baseline BASELINE] [--html FILE] [--markdown FILE]

Renders RESULT (judged against BASELINE when given) as a self-contained HTML page with
charts and/or as markdown for a job summary or pull-request comment. RESULT may be a sweep
document (loadgate sweep): throughput and latency against offered load, S, knee, capacity.

Options:
  --baseline FILE   compare with this result (without it: SLO rules only, "no baseline")
  --spec SPEC       take the gate rules from this spec's gate section
  --history FILE    add the trend and change points of this history (RESULT checked after its nights)
  --html FILE       write the HTML report
  --markdown FILE   write the markdown report
  -h, --help        this help

Exit codes: 0 written (whatever the verdict: use loadgate compare to gate on it), 3 error.`;

// eslint-disable-next-line @typescript-eslint/require-await -- every command has the async signature main() awaits
export async function reportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('report', argv, {
    baseline: { type: 'string' },
    spec: { type: 'string' },
    history: { type: 'string' },
    html: { type: 'string' },
    markdown: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) {
    process.stdout.write(`${REPORT_HELP}\n`);
    return EXIT.pass;
  }
  if (positionals.length !== 1) throw new UsageError('loadgate report takes exactly one result file; see loadgate report --help');
  if (!values.html && !values.markdown) throw new UsageError('loadgate report needs --html FILE and/or --markdown FILE to write');
  checkReportPaths(values, [
    { path: positionals[0], what: 'the result' },
    { path: values.baseline, what: '--baseline' },
  ]);
  if (isSweepDocument(readJsonFile(positionals[0]))) {
    const sweep = readSweep(positionals[0]);
    const gate = values.baseline === undefined ? null : compareSweeps(readSweep(values.baseline), sweep);
    const files = writeSweepReports(sweep, gate, values);
    process.stdout.write(`${gate ? `Verdict ${gate.verdict.toUpperCase()}; ` : ''}sweep report written to ${files.join(' and ')}\n`);
    return EXIT.pass;
  }
  const current = readResult(positionals[0]);
  const baseline = values.baseline === undefined ? null : readResult(values.baseline);
  const gate = gateFor(values.spec, current);
  const report = compare(baseline, current, gate, { calibration: calibrationFor(gate) });
  const history = values.history === undefined ? undefined : historyWithResult(values.history, current, report.verdict);
  const written = writeReports(report, baseline, current, values, history);
  process.stdout.write(`Verdict ${report.verdict.toUpperCase()}; report written to ${written.join(' and ')}\n`);
  return EXIT.pass;
}
