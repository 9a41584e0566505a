import { parseArgs } from 'node:util';
import { calibrationFor } from '../gate/calibration.js';
import { planDetection, type RulePlan } from '../gate/plan.js';
import { gateOf } from '../spec/gate-schema.js';
import { readResult } from '../result/load.js';
import { readSpec } from '../spec/load.js';
import { EXIT, UsageError } from './errors.js';

export const PLAN_HELP = `Usage: loadgate plan SPEC --baseline RESULT --detect 10% [options]

Estimates, from the baseline's histograms, what it takes for each latency rule of SPEC's gate
to catch a change of the given size 80 % of the time at the gate's confidence: the steady
window one run a side needs at the spec's rate, and the replicates a side needed at the
spec's window. The between-run CV comes from --calibration (or gate.calibration), else the
baseline's own replicates; without either, the gate's assumed one (gate.noise.assumed_cv),
as the comparison will take it, and said.

Options:
  --baseline RESULT   a result of SPEC (loadgate run), the histograms to plan from
  --detect P%         the change to detect, e.g. 10% or 0.1
  --calibration FILE  between-run CVs (loadgate calibrate)
  --json              print the plan as JSON
  -h, --help          this help

Exit codes: 0 planned, 3 error.`;

function parseDetect(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(text.trim());
  const value = m ? Number(m[1]) / (m[2] ? 100 : 1) : NaN;
  if (!(value > 0 && value < 10)) throw new UsageError(`--detect is "${text}"; expected a relative change such as 10% or 0.1`);
  return value;
}

const line = (p: RulePlan, windowS: number): string => {
  const head = `${p.metric} (baseline ${p.baseline_ms.toFixed(1)} ms, allows +${p.allowed_ms.toFixed(1)} ms): detecting +${p.detect_ms.toFixed(1)} ms`;
  if (p.impossible) return `${head} — impossible: ${p.impossible}`;
  const window =
    p.window_s === null
      ? 'no single-run window is long enough (the between-run spread alone is too large)'
      : `one run a side needs a ${p.window_s} s window`;
  const reps =
    p.replicates === null
      ? 'more than 100 replicates a side at the spec window'
      : `${p.replicates} replicate(s) a side of the spec's ${windowS} s window`;
  const cv =
    p.between_run_cv === null
      ? 'no between-run CV known: sampling noise only'
      : p.cv_source === 'assumed'
        ? `between-run CV ${(p.between_run_cv * 100).toFixed(1)} % assumed (gate.noise.assumed_cv): no replicates or calibration measured it`
        : `between-run CV ${(p.between_run_cv * 100).toFixed(1)} % from ${p.cv_source}`;
  return `${head} — ${window}; or ${reps} (${cv})`;
};

// eslint-disable-next-line @typescript-eslint/require-await -- every command has the async signature main() awaits
export async function planCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      baseline: { type: 'string' },
      detect: { type: 'string' },
      calibration: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${PLAN_HELP}\n`);
    return EXIT.pass;
  }
  if (positionals.length !== 1) throw new UsageError('loadgate plan takes exactly one spec file; see loadgate plan --help');
  if (values.baseline === undefined) throw new UsageError('loadgate plan needs --baseline RESULT, a result of the spec to plan from');
  if (values.detect === undefined) throw new UsageError('loadgate plan needs --detect, the change to detect (e.g. 10%)');
  const detect = parseDetect(values.detect);
  const { spec, steadyMs } = readSpec(positionals[0]);
  const gate = gateOf(spec);
  const baseline = readResult(values.baseline);
  if (spec.load.mode !== 'open') throw new UsageError('loadgate plan plans open-loop specs (a rate); this spec is closed-loop');
  const windowS = steadyMs / 1000;
  const plans = planDetection({
    baseline,
    gate,
    detect,
    rate: spec.load.rate,
    windowS,
    calibration: calibrationFor(gate, values.calibration),
  });
  if (values.json) process.stdout.write(`${JSON.stringify(plans, null, 2)}\n`);
  else
    process.stdout.write(
      `To detect a ${(detect * 100).toFixed(1)} % rise at ${spec.load.rate} req/s (${(gate.confidence * 100).toFixed(1)} % confidence, caught 80 % of the time):\n${plans.map((p) => `  ${line(p, windowS)}`).join('\n')}\n`,
    );
  return EXIT.pass;
}
