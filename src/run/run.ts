import { randomBytes } from 'node:crypto';
import { recordLine } from '../metrics/record-line.js';
import type { Result } from '../result/types.js';
import { launchSim } from '../sim/launch.js';
import type { ResolvedSpec } from '../spec/types.js';
import { now } from '../time.js';
import { loadWorkloadInputs } from '../workload/inputs.js';
import { createWorkload, prepareWorkload } from '../workload/workload.js';
import { measure, type Progress } from './measure.js';
import { waitForReady } from './ready.js';
import { startServerView, type ServerWatch } from './server-view.js';
import { measureInWorkers } from './workers.js';

export type { Progress } from './measure.js';

export interface RunOptions {
  resolved: ResolvedSpec;
  /** Aborting stops dispatch, cancels in-flight requests and still returns a result. */
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  /** Receives every finished request as one JSON line (for the optional raw JSONL file). */
  onRecordLine?: (line: string) => void;
  /** Generator threads; each takes an independent 1/N share of the arrivals. Default 1: this thread. */
  workers?: number;
}

/** Lead time so the first arrivals are not late while the run starts up. */
const START_LEAD_MS = 50;

/** The headers of readiness probes and calibration requests: the spec's, plus the key as a bearer token. */
function probeHeaders(resolved: ResolvedSpec): Record<string, string> {
  return resolved.apiKey ? { ...resolved.headers, authorization: `Bearer ${resolved.apiKey}` } : { ...resolved.headers };
}

/** Both sides of an interleaved A/B run. */
export interface AbResults {
  current: Result;
  baseline: Result;
}

/**
 * Interleaved A/B: the same seeded arrival stream, with the same prompts, sent to the candidate
 * (the spec's target) and to a baseline deployment at the same instants in one window, so drift
 * of the machine, the network or the time of day hits both sides equally. One generator thread
 * drives both; each side has its own connection pool and recorder.
 */
export async function runInterleaved(o: RunOptions & { baselineUrl: string }): Promise<AbResults> {
  const { resolved } = o;
  const { spec } = resolved;
  if (spec.target.url === 'sim')
    throw new Error('interleaved A/B needs two deployments: set target.url (or --target-url) to the candidate, not "sim"');
  const inputs = loadWorkloadInputs(resolved);
  const headers = probeHeaders(resolved);
  await Promise.all([
    waitForReady(spec.target.url, resolved.readyTimeoutMs, headers),
    waitForReady(o.baselineUrl, resolved.readyTimeoutMs, headers),
  ]);
  const prepared = await prepareWorkload(inputs, { baseUrl: spec.target.url, headers, timeoutMs: resolved.requestTimeoutMs });
  const { calibration, salt } = prepared.describe().plan;
  const runId = randomBytes(4).toString('hex');
  const runStart = now() + START_LEAD_MS;
  const baselineResolved = { ...resolved, spec: { ...spec, target: { ...spec.target, url: o.baselineUrl } } };
  const side = (r: ResolvedSpec, tag: string, workload = createWorkload(inputs, calibration, salt)) =>
    measure({
      resolved: r,
      signal: o.signal,
      baseUrl: r.spec.target.url,
      simulator: false,
      workload,
      runId: `${runId}${tag}`,
      runStart,
      onProgress: tag === 'a' ? o.onProgress : undefined,
    });
  const [current, baseline] = await Promise.all([side(resolved, 'a', prepared), side(baselineResolved, 'b')]);
  return { current, baseline };
}

/** Runs one benchmark end to end: target up, warmup, steady window, cooldown, drain, result. */
export async function runBenchmark(o: RunOptions): Promise<Result> {
  const { resolved } = o;
  const { spec } = resolved;
  const simulator = spec.target.url === 'sim';
  const inputs = loadWorkloadInputs(resolved); // a bad dataset or length file fails before anything starts
  // The simulator serves the spec's model name, so the same spec runs against it and a real server.
  const sim = simulator ? await launchSim({ ...spec.target.sim, model: spec.target.model }) : undefined;
  let server: ServerWatch | undefined;
  try {
    const baseUrl = sim ? sim.baseUrl : spec.target.url;
    const headers = probeHeaders(resolved);
    await waitForReady(baseUrl, resolved.readyTimeoutMs, headers);
    const workload = await prepareWorkload(inputs, { baseUrl, headers, timeoutMs: resolved.requestTimeoutMs });
    const runId = randomBytes(4).toString('hex');
    server = await startServerView(resolved, baseUrl, headers);
    if ((o.workers ?? 1) > 1)
      return await measureInWorkers({ ...o, workers: o.workers!, baseUrl, simulator, workload, runId, startLeadMs: START_LEAD_MS, server });
    const onRecord = o.onRecordLine && ((r: Parameters<typeof recordLine>[0]) => o.onRecordLine!(recordLine(r)));
    return await measure({
      resolved,
      signal: o.signal,
      onProgress: o.onProgress,
      onRecord,
      baseUrl,
      simulator,
      workload,
      runId,
      runStart: now() + START_LEAD_MS,
      server,
    });
  } finally {
    await server?.stop();
    await sim?.stop();
  }
}
