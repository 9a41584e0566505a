// Entry of a generator thread (bundled as dist/worker.js): one shard of a run, with its own
// event loop, connection pool and recorder. Talks to src/run/workers.ts by messages only.
import { parentPort, workerData } from 'node:worker_threads';
import { recordLine } from '../metrics/record-line.js';
import { loadWorkloadInputs } from '../workload/inputs.js';
import { createWorkload } from '../workload/workload.js';
import { measure } from './measure.js';
import type { ToWorker, WorkerInit, FromWorker } from './worker-protocol.js';

const init = workerData as WorkerInit;
const port = parentPort!;
const post = (m: FromWorker) => port.postMessage(m);
const abort = new AbortController();
/** Raw records go to the main thread in batches: one message per record would cost more than the record. */
const RECORD_BATCH_MS = 200;
let lines: string[] = [];

port.on('message', (m: ToWorker) => {
  if (m.type === 'abort') abort.abort();
  else void start(m.runStart);
});

async function start(runStart: number): Promise<void> {
  const flush = () => {
    if (lines.length === 0) return;
    post({ type: 'records', lines });
    lines = [];
  };
  const flusher = init.records ? setInterval(flush, RECORD_BATCH_MS) : undefined;
  try {
    const workload = createWorkload(loadWorkloadInputs(init.resolved), init.calibration, init.salt);
    const result = await measure({
      resolved: init.resolved,
      baseUrl: init.baseUrl,
      simulator: init.simulator,
      workload,
      runStart,
      runId: init.runId,
      thread: init.thread,
      signal: abort.signal,
      onProgress: (p) => post({ type: 'progress', progress: p }),
      onRecord: init.records ? (r) => lines.push(recordLine(r)) : undefined,
    });
    flush();
    post({ type: 'result', result });
  } catch (e) {
    post({ type: 'error', message: (e as Error).message });
  } finally {
    clearInterval(flusher);
  }
}

post({ type: 'ready' });
