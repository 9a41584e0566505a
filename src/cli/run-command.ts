import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { compare } from '../gate/compare.js';
import { gateOf } from '../spec/gate-schema.js';
import { loadResult } from '../result/load.js';
import type { Result } from '../result/types.js';
import { existsSync } from 'node:fs';
import { renderConsoleReport } from '../report/console.js';
import { toVllmFormat } from '../result/vllm.js';
import { writeFileAtomic } from '../result/write.js';
import { runInterleaved } from '../run/run.js';
import { runReplicatesMerged } from '../run/replicates.js';
import { loadSpec } from '../spec/load.js';
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
  --format F          loadgate (default) or vllm: field names of vllm bench serve
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

Exit codes: 0 pass, 1 fail, 2 inconclusive, 3 error (bad spec, unreachable target).`;

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
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
    },
  });
  if (values.help) {
    process.stdout.write(`${RUN_HELP}\n`);
    return EXIT.pass;
  }
  if (positionals.length !== 1) throw new UsageError('loadgate run takes exactly one spec file; see loadgate run --help');
  if (values.format !== 'loadgate' && values.format !== 'vllm')
    throw new UsageError(`--format "${values.format}" is not known; expected loadgate or vllm`);
  if (values.mode !== undefined && values.mode !== 'open' && values.mode !== 'closed')
    throw new UsageError(`--mode "${values.mode}" is not known; expected open or closed`);
  const overridden = applyOverrides(loadSpec(positionals[0]), {
    targetUrl: values['target-url'],
    rate: values.rate,
    concurrency: values.concurrency,
    mode: values.mode,
    steady: values.duration,
    warmup: values.warmup,
  });
  const shard = values.shard === undefined ? { k: 0, n: 1 } : parseShard(values.shard);
  const resolved = shardSpec(overridden, shard.k, shard.n);
  const workers = values.workers === undefined ? defaultWorkers(resolved.spec.target.url === 'sim') : parseWorkers(values.workers);
  if (values.baseline !== undefined && values['baseline-url'] !== undefined)
    throw new UsageError('--baseline and --baseline-url both name a baseline; expected one of them');
  if (values['baseline-url'] !== undefined && !/^https?:\/\/[^/]/.test(values['baseline-url']))
    throw new UsageError(`--baseline-url is "${values['baseline-url']}"; expected http(s)://host[:port]/v1`);
  // A missing or broken baseline file fails now, not after the run.
  const baselineFile =
    values.baseline === undefined || (values['allow-missing-baseline'] && !existsSync(values.baseline))
      ? null
      : loadResult(values.baseline);

  const abort = new AbortController();
  const interrupt = () => {
    process.stderr.write('\ninterrupted: stopping dispatch, cancelling in-flight requests, writing the result…\n');
    abort.abort();
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const records = values.records ? createWriteStream(values.records) : undefined;
  const progress = progressPrinter(process.stderr);
  try {
    const run = {
      resolved,
      signal: abort.signal,
      onProgress: progress.update,
      onRecordLine: records ? (line: string) => records.write(`${line}\n`) : undefined,
      workers,
    };
    let result: Result;
    let baseline = baselineFile;
    if (values['baseline-url'] === undefined)
      result = await runReplicatesMerged(
        run,
        resolved.spec.load.replicates,
        (i) => resolved.spec.load.replicates > 1 && process.stderr.write(`replicate ${i + 1}/${resolved.spec.load.replicates}\n`),
      );
    else {
      ({ current: result, baseline } = await runInterleaved({ ...run, baselineUrl: values['baseline-url'] }));
      const baselineOut = values['baseline-out'] ?? values.out.replace(/(\.json)?$/, '.baseline.json');
      writeFileAtomic(baselineOut, `${JSON.stringify(baseline, null, 2)}\n`);
      process.stderr.write(`A/B baseline side written to ${baselineOut}\n`);
    }
    progress.end();
    const gate = compare(baseline, result, gateOf(result.spec));
    if (values.baseline !== undefined && baseline === null) {
      writeFileAtomic(values.baseline, `${JSON.stringify(result, null, 2)}\n`);
      process.stderr.write(`no baseline at ${values.baseline}: judged on SLO rules alone, and recorded this run there as the baseline\n`);
    }
    const doc = values.format === 'vllm' ? toVllmFormat(result) : result;
    writeFileAtomic(values.out, `${JSON.stringify(doc, null, 2)}\n`);
    if (values.json) process.stdout.write(`${JSON.stringify({ ...result, verdict: gate })}\n`);
    else process.stdout.write(`${renderConsoleReport(result, gate, baseline)}\nResult written to ${values.out}\n`);
    return EXIT[gate.verdict];
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    if (records) await new Promise((r) => records.end(r));
  }
}
