import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { evaluate } from '../gate/evaluate.js';
import { renderConsoleReport } from '../report/console.js';
import { toVllmFormat } from '../result/vllm.js';
import { writeFileAtomic } from '../result/write.js';
import { runBenchmark } from '../run/run.js';
import { loadSpec } from '../spec/load.js';
import { applyOverrides } from '../spec/override.js';
import { EXIT, UsageError } from './errors.js';
import { progressPrinter } from './progress.js';

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
  --json              print the result JSON on stdout instead of the report
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
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${RUN_HELP}\n`);
    return EXIT.pass;
  }
  if (positionals.length !== 1) throw new UsageError('loadgate run takes exactly one spec file; see loadgate run --help');
  if (values.format !== 'loadgate' && values.format !== 'vllm') throw new UsageError(`--format "${values.format}" is not known; expected loadgate or vllm`);
  if (values.mode !== undefined && values.mode !== 'open' && values.mode !== 'closed') throw new UsageError(`--mode "${values.mode}" is not known; expected open or closed`);
  const resolved = applyOverrides(loadSpec(positionals[0]!), {
    targetUrl: values['target-url'],
    rate: values.rate === undefined ? undefined : Number(values.rate),
    concurrency: values.concurrency === undefined ? undefined : Number(values.concurrency),
    mode: values.mode as 'open' | 'closed' | undefined,
    steady: values.duration,
    warmup: values.warmup,
  });

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
    const result = await runBenchmark({
      resolved,
      signal: abort.signal,
      onProgress: progress.update,
      onRecord: records
        ? (r) => records.write(`${JSON.stringify({ id: r.id, request_id: r.requestId, outcome: r.outcome, t_sched: r.tSched, t_send: r.tSend, t_first: r.tFirst, t_last: r.tLast, t_end: r.tEnd, output_tokens: r.outputTokens, prompt_tokens: r.usagePrompt, status: r.status, in_window: r.inWindow, detail: r.detail })}\n`)
        : undefined,
    });
    progress.end();
    const gate = evaluate(result);
    const doc = values.format === 'vllm' ? toVllmFormat(result) : result;
    writeFileAtomic(values.out!, `${JSON.stringify(doc, null, 2)}\n`);
    if (values.json) process.stdout.write(`${JSON.stringify({ ...result, verdict: gate })}\n`);
    else process.stdout.write(`${renderConsoleReport(result, gate)}\nResult written to ${values.out}\n`);
    return EXIT[gate.verdict];
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    if (records) await new Promise((r) => records.end(r));
  }
}
