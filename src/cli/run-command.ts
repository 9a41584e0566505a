import { compare } from '../gate/compare.js';
import { gateOf } from '../spec/gate-schema.js';
import { calibrationFor } from '../gate/calibration.js';
import { readResult } from '../result/load.js';
import type { Result } from '../result/types.js';
import { existsSync } from 'node:fs';
import { renderConsoleReport } from '../report/console.js';
import { toVllmFormat } from '../result/vllm.js';
import { openRecordsFile, type RecordsFile } from '../result/records-file.js';
import { checkOutputPaths, writeFileAtomic } from '../result/write.js';
import { workloadFilePaths } from '../workload/inputs.js';
import { wallClockBoundMs } from '../run/bound.js';
import { targetUrlProblem } from '../spec/url.js';
import { parseCommandArgs } from './args.js';
import { EXIT_INTERRUPTED } from '../run/interrupt.js';
import { guardRun } from '../run/guard.js';
import type { ResolvedSpec } from '../spec/types.js';
import type { GateReport } from '../gate/types.js';
import { runInterleaved } from '../run/run.js';
import { runReplicatesMerged } from '../run/replicates.js';
import { readSpec } from '../spec/load.js';
import { applyOverrides } from '../spec/override.js';
import { EXIT, UsageError } from './errors.js';
import { progressPrinter } from './progress.js';
import { parseShard, shardSpec } from '../run/shard.js';
import { availableParallelism } from 'node:os';

/** One generator thread per core, leaving one to the simulator when it runs on this machine. */
function defaultWorkers(simulatorHere: boolean): number {
  return Math.max(1, availableParallelism() - (simulatorHere ? 1 : 0));
}

function parseWorkers(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError(`--workers is "${text}"; expected a whole number from 1 to 64`);
  return n;
}

export const RUN_HELP = `Usage: loadgate run SPEC [options]

Runs the benchmark SPEC (YAML): waits for the target, warms up, measures the steady
window open-loop (or closed-loop when the spec says so), prints a report and a verdict.

Options:
  --target-url URL    target base URL (e.g. http://127.0.0.1:8000/v1), or "sim"
  --rate R            open-loop arrival rate, requests/s
  --concurrency N     closed-loop concurrency (with --mode closed)
  --mode open|closed  load model
  --duration D        length of the measured steady window (e.g. 30s, 5m)
  --warmup D          warmup, discarded (e.g. 5s)
  --out FILE          result path (default: loadgate-result.json)
  --format F          loadgate (default) or vllm: field names of vllm bench serve, for
                      dashboards (compare, merge and report cannot read it back)
  --records FILE      also write every request as one JSON line (raw timings)
  --workers N         generator threads, each an independent 1/N share of the load
                      (default: the cores, less one when the simulator runs here)
  --shard K/N         run shard K of N (rate/N, own seed) on this machine; combine the
                      N results with loadgate merge --mode shards
  --json              print the result JSON on stdout instead of the report
  --baseline FILE     judge the run against this baseline result (noise-aware gate)
  --allow-missing-baseline
                      with --baseline: a missing file is a first run — judged on SLO rules
                      alone, and this run's result is recorded there as the baseline
  --baseline-url URL  interleaved A/B: send the same arrivals and prompts to this baseline
                      deployment in the same window and judge the target against it
  --baseline-out FILE where the A/B baseline side's result goes (default: OUT.baseline.json)
  -h, --help          this help

Every output path is checked before the first request. Ctrl-C (or SIGTERM) stops the run at
once and still writes the result; a second one exits 130 as soon as it is written. A run that
passes its wall-clock bound (the spec's timeouts and windows, plus a margin) stops the same way.

Exit codes: 0 pass, 1 fail, 2 inconclusive, 3 error (bad spec or flag, unwritable output,
unreachable target, rejected API key, model not served, wall-clock bound passed), 130 interrupted twice.`;

const RUN_OPTIONS = {
  'target-url': { type: 'string' },
  rate: { type: 'string' },
  concurrency: { type: 'string' },
  mode: { type: 'string' },
  duration: { type: 'string' },
  warmup: { type: 'string' },
  out: { type: 'string', default: 'loadgate-result.json' },
  format: { type: 'string', default: 'loadgate' },
  records: { type: 'string' },
  workers: { type: 'string' },
  shard: { type: 'string' },
  json: { type: 'boolean', default: false },
  baseline: { type: 'string' },
  'allow-missing-baseline': { type: 'boolean', default: false },
  'baseline-url': { type: 'string' },
  'baseline-out': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type RunValues = ReturnType<typeof parseCommandArgs<typeof RUN_OPTIONS>>['values'];

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', argv, RUN_OPTIONS);
  if (values.help) {
    process.stdout.write(`${RUN_HELP}\n`);
    return EXIT.pass;
  }
  const plan = prepareRun(values, positionals);
  const say = (line: string) => process.stderr.write(`\n${line}\n`);
  const guard = guardRun({
    say,
    boundMs: wallClockBoundMs(plan.resolved),
    boundLine: (s) => `loadgate run: the run passed its wall-clock bound of ${s} s; stopping and writing what it has`,
    giveUp: (s) => say(`loadgate run: still not finished ${s} s past its wall-clock bound; exiting without a result`),
  });
  const progress = progressPrinter(process.stderr);
  try {
    const { result, baseline } = await execute(plan, guard.signal, progress);
    progress.end();
    const recordsProblem = await plan.records?.close();
    const gate = compare(baseline, result, gateOf(result.spec), { calibration: plan.calibration });
    writeAndReport(plan, result, baseline, gate);
    if (recordsProblem) process.stderr.write(`loadgate run: ${recordsProblem}\n`);
    if (guard.forced) return EXIT_INTERRUPTED;
    if (guard.boundPassed || recordsProblem) return EXIT.error;
    return EXIT[gate.verdict];
  } finally {
    guard.release();
    progress.end();
    await plan.records?.close();
  }
}

/** Everything a run needs, read and checked before the load starts. */
interface RunPlan {
  values: RunValues;
  resolved: ResolvedSpec;
  calibration: ReturnType<typeof calibrationFor>;
  workers: number;
  baselineUrl?: string;
  /** --allow-missing-baseline with no file there yet: this run is recorded as the baseline. */
  recordsBaseline: boolean;
  baselineFile: Result | null;
  baselineOut?: string;
  records?: RecordsFile;
}

/** Reads the spec and the baseline and checks every flag and output path: a bad input costs no run. */
function prepareRun(values: RunValues, positionals: string[]): RunPlan {
  if (positionals.length !== 1) throw new UsageError('loadgate run takes exactly one spec file; see loadgate run --help');
  if (values.format !== 'loadgate' && values.format !== 'vllm')
    throw new UsageError(`--format "${values.format}" is not known; expected loadgate or vllm`);
  const resolved = resolvedSpec(values, positionals[0], modeOf(values.mode));
  // Read before the load starts: a bad calibration path costs no run.
  const calibration = calibrationFor(gateOf(resolved.spec));
  const workers = values.workers === undefined ? defaultWorkers(resolved.spec.target.url === 'sim') : parseWorkers(values.workers);
  const baselineUrl = checkedBaselineUrl(values);
  // A missing or broken baseline file fails now, not after the run.
  const recordsBaseline = values.baseline !== undefined && values['allow-missing-baseline'] && !existsSync(values.baseline);
  const baselineFile = values.baseline === undefined || recordsBaseline ? null : readResult(values.baseline);
  // Every file the run will write is checked before the first request.
  const baselineOut =
    baselineUrl === undefined ? undefined : (values['baseline-out'] ?? values.out.replace(/(\.json)?$/, '.baseline.json'));
  checkOutputPaths(
    [
      { path: values.out, what: '--out' },
      { path: baselineOut, what: '--baseline-out' },
      { path: recordsBaseline ? values.baseline : undefined, what: '--baseline' },
      { path: values.records, what: '--records', stream: true },
    ],
    [
      { path: positionals[0], what: 'the spec' },
      { path: recordsBaseline ? undefined : values.baseline, what: '--baseline' },
      { path: gateOf(resolved.spec).calibration, what: 'gate.calibration' },
      ...workloadFilePaths(resolved),
    ],
  );
  const records = values.records === undefined ? undefined : openRecordsFile(values.records);
  return { values, resolved, calibration, workers, baselineUrl, recordsBaseline, baselineFile, baselineOut, records };
}

/** The spec with the flags' overrides, and this machine's shard of it. */
function resolvedSpec(values: RunValues, path: string, mode: 'open' | 'closed' | undefined): ResolvedSpec {
  const overridden = applyOverrides(readSpec(path), {
    targetUrl: values['target-url'],
    rate: values.rate,
    concurrency: values.concurrency,
    mode,
    steady: values.duration,
    warmup: values.warmup,
  });
  const shard = values.shard === undefined ? { k: 0, n: 1 } : parseShard(values.shard);
  return shardSpec(overridden, shard.k, shard.n);
}

function modeOf(mode: string | undefined): 'open' | 'closed' | undefined {
  if (mode !== undefined && mode !== 'open' && mode !== 'closed')
    throw new UsageError(`--mode "${mode}" is not known; expected open or closed`);
  return mode;
}

function checkedBaselineUrl(values: RunValues): string | undefined {
  const baselineUrl = values['baseline-url'];
  if (values.baseline !== undefined && baselineUrl !== undefined)
    throw new UsageError('--baseline and --baseline-url both name a baseline; expected one of them');
  const urlProblem = baselineUrl === undefined || baselineUrl === 'sim' ? undefined : targetUrlProblem(baselineUrl);
  if (baselineUrl === 'sim' || urlProblem !== undefined)
    throw new UsageError(
      `--baseline-url ${urlProblem ?? 'is "sim"'}; expected http(s)://host[:port]/v1 without credentials (the key goes in target.api_key_env)`,
    );
  return baselineUrl;
}

/** The run: its replicates merged, or interleaved A/B against --baseline-url (that side written at once). */
async function execute(
  plan: RunPlan,
  signal: AbortSignal,
  progress: ReturnType<typeof progressPrinter>,
): Promise<{ result: Result; baseline: Result | null }> {
  const { resolved, baselineUrl } = plan;
  const run = {
    resolved,
    signal,
    onProgress: (p: Parameters<typeof progress.update>[0]) => progress.update(p),
    onRecordLine: plan.records?.write,
    onNotice: (line: string) => process.stderr.write(`${line}\n`),
    workers: plan.workers,
  };
  if (baselineUrl === undefined) {
    const { replicates } = resolved.spec.load;
    const result = await runReplicatesMerged(
      run,
      replicates,
      (i) => replicates > 1 && process.stderr.write(`replicate ${i + 1}/${replicates}\n`),
    );
    return { result, baseline: plan.baselineFile };
  }
  const { current: result, baseline } = await runInterleaved({ ...run, baselineUrl });
  writeFileAtomic(plan.baselineOut!, `${JSON.stringify(baseline, null, 2)}\n`, '--baseline-out');
  process.stderr.write(`A/B baseline side written to ${plan.baselineOut}\n`);
  return { result, baseline };
}

/** Writes the result (and a first baseline) and prints the report or the JSON. */
function writeAndReport(plan: RunPlan, result: Result, baseline: Result | null, gate: GateReport): void {
  const { values } = plan;
  if (plan.recordsBaseline && baseline === null) {
    writeFileAtomic(values.baseline!, `${JSON.stringify(result, null, 2)}\n`, '--baseline');
    process.stderr.write(`no baseline at ${values.baseline}: judged on SLO rules alone, and recorded this run there as the baseline\n`);
  }
  const doc = values.format === 'vllm' ? toVllmFormat(result) : result;
  writeFileAtomic(values.out, `${JSON.stringify(doc, null, 2)}\n`, '--out');
  if (values.json) process.stdout.write(`${JSON.stringify({ ...result, verdict: gate })}\n`);
  else process.stdout.write(`${renderConsoleReport(result, gate, baseline)}\nResult written to ${values.out}\n`);
  if (result.load.interrupted && result.requests.scheduled === 0)
    process.stderr.write(
      `interrupted before the first request: no request was sent (${result.requests.not_reached} scheduled arrivals not reached)\n`,
    );
}
