import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { assembleResult } from '../result/assemble.js';
import { mergeTotals } from '../result/merge.js';
import type { RunTotals } from '../result/totals.js';
import type { Result } from '../result/types.js';
import { packageRoot } from '../package-root.js';
import type { ResolvedSpec } from '../spec/types.js';
import { now } from '../time.js';
import type { Workload } from '../workload/types.js';
import type { Progress } from './measure.js';
import type { ServerWatch } from './server-watch.js';
import { shardSpec } from './shard.js';
import type { FromWorker, WorkerInit } from './worker-protocol.js';

export interface WorkersOptions {
  resolved: ResolvedSpec;
  workers: number;
  baseUrl: string;
  simulator: boolean;
  /** Calibrated in this thread; its plan (calibration, salt) is handed to every worker. */
  workload: Workload;
  runId: string;
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  onRecordLine?: (line: string) => void;
  /** Lead time between the workers being ready and the first arrival. */
  startLeadMs: number;
  /** The run's one server view, scraped from this thread (never per generator thread). */
  server?: ServerWatch;
}

/**
 * Runs the measurement in N generator threads, each an independent shard (src/run/shard.ts)
 * with its own event loop and connection pool, all starting at one shared instant; their
 * histograms and counters are merged exactly, as `loadgate merge --mode shards` does.
 */
export async function measureInWorkers(o: WorkersOptions): Promise<Result> {
  const { spec } = o.resolved;
  const n = spec.load.mode === 'closed' ? Math.min(o.workers, spec.load.concurrency) : o.workers;
  const { calibration, salt } = o.workload.describe().plan;
  const file = join(packageRoot(), 'dist', 'worker.js');
  const threads = Array.from({ length: n }, (_, k) => {
    const init: WorkerInit = {
      resolved: shardSpec(o.resolved, k, n),
      baseUrl: o.baseUrl,
      simulator: o.simulator,
      calibration,
      salt: salt + k,
      runId: `${o.runId}w${k}`,
      thread: k,
      records: o.onRecordLine !== undefined,
    };
    return new Worker(file, { workerData: init });
  });
  const progress = new Array<Progress | undefined>(n);
  const results: Promise<Result>[] = [];
  const ready: Promise<void>[] = [];
  threads.forEach((w, k) => {
    let onReady!: () => void;
    ready.push(new Promise<void>((r) => (onReady = r)));
    results.push(
      new Promise<Result>((resolve, reject) => {
        w.on('message', (m: FromWorker) => {
          if (m.type === 'ready') onReady();
          else if (m.type === 'progress') {
            progress[k] = m.progress;
            if (k === 0) o.onProgress?.(sumProgress(progress));
          } else if (m.type === 'records') for (const line of m.lines) o.onRecordLine?.(line);
          else if (m.type === 'result') resolve(m.result);
          else reject(new Error(`generator thread ${k + 1} of ${n}: ${m.message}`));
        });
        w.once('error', (e) => reject(new Error(`generator thread ${k + 1} of ${n} crashed: ${e.message}`)));
        w.once('exit', (code) => reject(new Error(`generator thread ${k + 1} of ${n} exited (code ${code}) without a result`)));
      }),
    );
  });
  const abort = () => threads.forEach((w) => w.postMessage({ type: 'abort' }));
  o.signal?.addEventListener('abort', abort, { once: true });
  const cpu0 = process.cpuUsage();
  const wall0 = now();
  try {
    await Promise.all(ready);
    const runStart = now() + o.startLeadMs;
    threads.forEach((w) => w.postMessage({ type: 'start', runStart }));
    if (o.signal?.aborted) abort();
    const shards = mergeTotals(await Promise.all(results), { mode: 'shards' });
    const windowStart = runStart + o.resolved.warmupMs;
    const serverView = await o.server?.finish({
      runStart,
      windowStart,
      windowEnd: windowStart + shards.windowS * 1000,
      seriesIntervalS: shards.series.intervalS,
      seriesLength: Math.max(shards.series.sent.length, shards.series.ok.length, shards.series.errors.length),
    });
    const whole = wholeRun(shards, o.resolved, n, process.cpuUsage(cpu0), (now() - wall0) / 1000);
    return assembleResult(serverView ? { ...whole, serverView } : whole);
  } finally {
    o.signal?.removeEventListener('abort', abort);
    await Promise.all(threads.map((w) => w.terminate()));
  }
}

/** The threads' shards, added up and described as the one run the user asked for. */
function wholeRun(shards: RunTotals, resolved: ResolvedSpec, n: number, cpu: NodeJS.CpuUsage, wallS: number): RunTotals {
  const cpuS = (cpu.user + cpu.system) / 1e6;
  return {
    ...shards,
    spec: resolved.spec,
    specHash: resolved.hash,
    environment: { ...shards.environment, workers: n },
    parts: { how: 'threads', count: n },
    // Threads share one process: its CPU and RSS are the run's (per-thread figures would double count).
    generator: { ...shards.generator, cpuS, cpuUtilization: cpuS / wallS, rssMb: process.memoryUsage.rss() / 2 ** 20 },
  };
}

function sumProgress(ps: (Progress | undefined)[]): Progress {
  const out: Progress = { elapsedS: 0, totalS: 0, phase: 'warmup', sent: 0, ok: 0, failed: 0, inFlight: 0 };
  for (const p of ps) {
    if (!p) continue;
    out.elapsedS = Math.max(out.elapsedS, p.elapsedS);
    out.totalS = p.totalS;
    out.phase = p.phase;
    out.sent += p.sent;
    out.ok += p.ok;
    out.failed += p.failed;
    out.inFlight += p.inFlight;
  }
  return out;
}
