import { calibrationFrom } from '../gate/calibration.js';
import { pctText } from '../numbers.js';
import { readResult } from '../result/load.js';
import { checkDistinctRuns, mergeResults } from '../result/merge.js';
import type { Result } from '../result/types.js';
import { checkDistinctInputs, checkOutputPaths, writeFileAtomic } from '../result/write.js';
import { workloadFilePaths } from '../workload/inputs.js';
import { runReplicatesMerged } from '../run/replicates.js';
import { readSpec } from '../spec/load.js';
import { applyOverrides } from '../spec/override.js';
import { parseCommandArgs } from './args.js';
import { EXIT, UsageError } from './errors.js';
import { progressPrinter } from './progress.js';

export const CALIBRATE_HELP = `Usage: loadgate calibrate SPEC [options]
       loadgate calibrate --from RESULT.json … [--out FILE]

Runs N short A/A replicates of SPEC against its target, one after another (each with its own
seed), and writes the between-run coefficient of variation of every metric the gate judges to
a calibration file. Give the file to compare --calibration, the spec's gate.calibration or the
action's calibration input: both sides of every comparison are then widened by the
deployment's own run-to-run spread, and a CV above gate.max_cv names the environment unstable.
With --from, nothing is run: the calibration is written from A/A results already measured (say
a nightly's replicates: at least 3 runs of one spec, or one merged result of at least 3).

Options:
  --from              the arguments are result files, not a spec
  --replicates N      A/A runs (default 5, at least 3)
  --duration D        each run's steady window (default: the spec's; e.g. 20s)
  --warmup D          each run's warmup
  --target-url URL    target base URL, or "sim"
  --out FILE          calibration file (default: loadgate-calibration.json)
  -h, --help          this help

Exit codes: 0 written, 3 error (bad spec, unreachable target, interrupted).`;

export async function calibrateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('calibrate', argv, {
    from: { type: 'boolean', default: false },
    replicates: { type: 'string', default: '5' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    'target-url': { type: 'string' },
    out: { type: 'string', default: 'loadgate-calibration.json' },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) {
    process.stdout.write(`${CALIBRATE_HELP}\n`);
    return EXIT.pass;
  }
  if (values.from) return calibrateFromResults(positionals, values.out);
  if (positionals.length !== 1) throw new UsageError('loadgate calibrate takes exactly one spec file; see loadgate calibrate --help');
  const n = Number(values.replicates);
  if (!Number.isInteger(n) || n < 3 || n > 100)
    throw new UsageError(`--replicates is "${values.replicates}"; expected a whole number from 3 to 100 (a spread needs at least 3 runs)`);
  const resolved = applyOverrides(readSpec(positionals[0]), {
    targetUrl: values['target-url'],
    steady: values.duration,
    warmup: values.warmup,
  });
  // Before the first replicate: a calibration is minutes of runs, never lost to a bad path.
  checkOutputPaths([{ path: values.out, what: '--out' }], [{ path: positionals[0], what: 'the spec' }, ...workloadFilePaths(resolved)]);
  const abort = new AbortController();
  const interrupt = () => abort.abort();
  process.once('SIGINT', interrupt).once('SIGTERM', interrupt);
  const progress = progressPrinter(process.stderr);
  try {
    const merged = await runReplicatesMerged(
      { resolved, signal: abort.signal, onProgress: (p) => progress.update(p), workers: 1 },
      n,
      (i) => process.stderr.write(`calibration run ${i + 1}/${n}\n`),
    );
    progress.end();
    if (merged.load.interrupted) throw new UsageError('interrupted: no calibration written (every replicate must complete)');
    return writeCalibration(merged, values.out);
  } finally {
    process.off('SIGINT', interrupt).off('SIGTERM', interrupt);
  }
}

/** --from: the spread of replicates already run, merged as `loadgate merge` merges them (runs of another spec are refused there). */
function calibrateFromResults(paths: string[], out: string): number {
  if (paths.length === 0)
    throw new UsageError('--from needs result files: at least 3 runs of one spec, or one merged result of at least 3');
  checkDistinctInputs(paths);
  checkOutputPaths(
    [{ path: out, what: '--out' }],
    paths.map((path) => ({ path, what: 'an input' })),
  );
  const results = paths.map(readResult);
  checkDistinctRuns(results, paths);
  const merged = results.length === 1 ? results[0] : mergeResults(results, { mode: 'replicates', names: paths });
  const runs = merged.replicates?.count ?? 1;
  if (runs < 3)
    throw new UsageError(
      `--from: ${paths.length === 1 ? `${paths[0]} holds ${runs} run${runs === 1 ? '' : 's'}` : `${paths.length} results`}; a spread needs at least 3 runs of one spec`,
    );
  return writeCalibration(merged, out);
}

function writeCalibration(merged: Result, out: string): number {
  const calibration = calibrationFrom(merged);
  writeFileAtomic(out, `${JSON.stringify(calibration, null, 2)}\n`, '--out');
  const shown = ['ttft_ms.p95', 'tpot_ms.p50', 'itl_ms.p99', 'e2e_ms.p95', 'throughput.output_tokens_per_s'].filter(
    (k) => calibration.cv[k] !== undefined,
  );
  process.stdout.write(
    `Between-run CV across ${calibration.replicates} runs: ${shown.map((k) => `${k} ${pctText(calibration.cv[k])}`).join(', ')}\nCalibration written to ${out}\n`,
  );
  return EXIT.pass;
}
