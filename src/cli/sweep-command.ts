import { compareSweeps } from '../capacity/gate.js';
import { latencyOf } from '../result/latency.js';
import { readSweep } from '../capacity/load.js';
import type { SweepDocument } from '../capacity/document.js';
import type { GateReport } from '../gate/types.js';
import { renderSweepHtml } from '../report/sweep-html.js';
import { renderSweepMarkdown, renderSweepText } from '../report/sweep.js';
import { checkOutputPaths, writeFileAtomic } from '../result/write.js';
import { workloadFilePaths } from '../workload/inputs.js';
import { EXIT_INTERRUPTED, trapInterrupts } from '../run/interrupt.js';
import { parseCommandArgs } from './args.js';
import { readSpec } from '../spec/load.js';
import { applyOverrides } from '../spec/override.js';
import { runSweep, type PointInfo } from '../sweep/run.js';
import { EXIT, UsageError } from './errors.js';
import { progressPrinter } from './progress.js';

export const SWEEP_HELP = `Usage: loadgate sweep SPEC [options]

Runs the spec's sweep: a series of full measurements (each with its own warmup, steady window
and validity) at rising load — open-loop rates (sweep.rates, sweep.from/to/steps, or
sweep: auto) or closed-loop concurrency (sweep.concurrency) — stopping at the first point past
saturation. Prints the service floor S, the knee, the saturation throughput, the capacity at
the SLO (bisected) and, with sizing.peak_rate, the fleet size, each with its rule.

Options:
  --target-url URL   target base URL, or "sim"
  --duration D       steady window of each point (e.g. 30s)
  --warmup D         warmup of each point
  --workers N        generator threads per point (default 1)
  --out FILE         sweep document (default: loadgate-sweep.json)
  --baseline FILE    judge against this baseline sweep (sweep.gate rules)
  --html FILE        also write the HTML report with charts
  --markdown FILE    also write the markdown report
  --json             print the sweep document on stdout instead of the report
  -h, --help         this help

Ctrl-C stops the point in progress and writes the points measured so far.
Exit codes: 0 done (or pass), 1 fail, 2 inconclusive (or interrupted), 3 error.`;

function parseWorkers(text: string | undefined): number {
  if (text === undefined) return 1;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError(`--workers is "${text}"; expected a whole number from 1 to 64`);
  return n;
}

const describe = (p: PointInfo) =>
  `point ${p.number}/${p.planned} (${p.role}, ${p.mode === 'open' ? `open-loop ${p.load} req/s` : `closed-loop concurrency ${p.load}`})`;

/** Writes the sweep document and the requested reports; shared with `loadgate report` and `compare`. */
export function writeSweepReports(d: SweepDocument, gate: GateReport | null, files: { html?: string; markdown?: string }): string[] {
  const written: string[] = [];
  if (files.markdown) {
    writeFileAtomic(files.markdown, renderSweepMarkdown(d, gate), '--markdown');
    written.push(files.markdown);
  }
  if (files.html) {
    writeFileAtomic(files.html, renderSweepHtml(d, gate), '--html');
    written.push(files.html);
  }
  return written;
}

export async function sweepCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('sweep', argv, {
    'target-url': { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    workers: { type: 'string' },
    out: { type: 'string', default: 'loadgate-sweep.json' },
    baseline: { type: 'string' },
    html: { type: 'string' },
    markdown: { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) {
    process.stdout.write(`${SWEEP_HELP}\n`);
    return EXIT.pass;
  }
  if (positionals.length !== 1) throw new UsageError('loadgate sweep takes exactly one spec file; see loadgate sweep --help');
  const resolved = applyOverrides(readSpec(positionals[0]), {
    targetUrl: values['target-url'],
    steady: values.duration,
    warmup: values.warmup,
  });
  if (!resolved.spec.sweep)
    throw new UsageError(
      `${positionals[0]}: has no sweep section; add e.g. "sweep: auto", "sweep: { rates: [5, 10, 20] }" or "sweep: { concurrency: [1, 4, 16] }"`,
    );
  const workers = parseWorkers(values.workers);
  const baseline = values.baseline === undefined ? null : readSweep(values.baseline); // a bad baseline fails before the load

  // Every file the sweep writes is checked before its first request.
  checkOutputPaths(
    [
      { path: values.out, what: '--out' },
      { path: values.html, what: '--html' },
      { path: values.markdown, what: '--markdown' },
    ],
    [{ path: positionals[0], what: 'the spec' }, { path: values.baseline, what: '--baseline' }, ...workloadFilePaths(resolved)],
  );

  const abort = new AbortController();
  const interrupts = trapInterrupts(
    abort,
    (line) => process.stderr.write(`\n${line}\n`),
    'interrupted: stopping the point in progress and writing the points measured so far…',
  );
  const metric = resolved.spec.sweep.metric;
  let current = '';
  const progress = progressPrinter(process.stderr, () => `${current} `);
  try {
    const doc = await runSweep({
      resolved,
      signal: abort.signal,
      workers,
      onProgress: (p) => progress.update(p),
      onPointStart: (p) => {
        current = describe(p);
        if (!process.stderr.isTTY) process.stderr.write(`${current}: measuring\n`);
      },
      onPointDone: (p, point, why) => {
        progress.end();
        const r = point.result;
        const lat = latencyOf(r, metric);
        process.stderr.write(
          `${describe(p)}: completed ${r.throughput.requests_per_s} req/s of ${r.load.offered_rate_per_s} offered · ${metric.toUpperCase()} p50 ${lat?.p50 ?? 'n/a'} ms p99 ${lat?.p99 ?? 'n/a'} ms · goodput ${r.goodput.fraction === null ? 'n/a' : `${(r.goodput.fraction * 100).toFixed(1)} %`} · ${r.validity.valid ? 'valid' : 'not valid'}${why ? ` · past saturation: ${why}` : ''}\n`,
        );
      },
    });
    progress.end();
    writeFileAtomic(values.out, `${JSON.stringify(doc, null, 2)}\n`, '--out');
    const gate = baseline ? compareSweeps(baseline, doc) : null;
    const written = writeSweepReports(doc, gate, values);
    if (values.json) process.stdout.write(`${JSON.stringify(gate ? { ...doc, verdict: gate } : doc)}\n`);
    else process.stdout.write(`${renderSweepText(doc, gate)}\n${[values.out, ...written].map((f) => `Written to ${f}\n`).join('')}`);
    if (interrupts.forced) return EXIT_INTERRUPTED;
    if (gate) return EXIT[gate.verdict];
    return doc.interrupted ? EXIT.inconclusive : EXIT.pass;
  } finally {
    interrupts.release();
  }
}
