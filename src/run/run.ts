import { randomBytes } from 'node:crypto';
import { recordLine } from '../metrics/record-line.js';
import type { Result } from '../result/types.js';
import { launchSim } from '../sim/launch.js';
import type { ResolvedSpec } from '../spec/types.js';
import { now } from '../time.js';
import { isCredentialHeader } from '../spec/resolve.js';
import { uncalibrated } from '../workload/calibrate.js';
import { loadWorkloadInputs, type WorkloadInputs } from '../workload/inputs.js';
import type { Workload } from '../workload/types.js';
import { createWorkload, prepareWorkload } from '../workload/workload.js';
import { measure, type Progress } from './measure.js';
import { waitForReady, type ReadyAuth } from './ready.js';
import { withServedModel } from './served-model.js';
import { startServerWatch, type ServerWatch } from './server-watch.js';
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
  /** Receives what the user should know before the load starts (e.g. the model taken from the server's list). */
  onNotice?: (line: string) => void;
}

/** Lead time so the first arrivals are not late while the run starts up. */
const START_LEAD_MS = 50;

/** The headers of readiness probes and calibration requests: the spec's, plus the key as a bearer token. */
function probeHeaders(resolved: ResolvedSpec): Record<string, string> {
  return resolved.apiKey ? { ...resolved.headers, authorization: `Bearer ${resolved.apiKey}` } : { ...resolved.headers };
}

/** What a 401 at readiness is about: the key from api_key_env, a credential header, or nothing sent. */
function authOf(resolved: ResolvedSpec): ReadyAuth {
  return {
    ...(resolved.apiKey ? { keyEnv: resolved.spec.target.api_key_env } : {}),
    credentialHeader: Object.keys(resolved.headers).some(isCredentialHeader),
  };
}

/** Resolves with the promise's value, or with undefined as soon as `signal` aborts. */
function unlessAborted<T>(p: Promise<T>, signal?: AbortSignal): Promise<T | undefined> {
  if (!signal) return p;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Stands in for a model never learned: the run was stopped before the server listed its models. */
const MODEL_NOT_LEARNED = '(unknown: interrupted before the readiness check)';

/**
 * The result of a run stopped before its first request (Ctrl-C during the readiness
 * wait or the calibration): nothing sent, every scheduled arrival counted as not reached,
 * marked interrupted, so the result says what happened instead of being lost.
 */
function nothingSent(o: RunOptions, resolved: ResolvedSpec, inputs: WorkloadInputs, simulator: boolean, workload?: Workload) {
  const r =
    resolved.spec.target.model === undefined
      ? { ...resolved, spec: { ...resolved.spec, target: { ...resolved.spec.target, model: MODEL_NOT_LEARNED } } }
      : resolved;
  return measure({
    resolved: r,
    signal: o.signal,
    baseUrl: simulator ? 'http://127.0.0.1:9/v1' : r.spec.target.url,
    simulator,
    workload: workload ?? createWorkload({ ...inputs, spec: r.spec }, uncalibrated(), 1),
    runId: randomBytes(4).toString('hex'),
    runStart: now(),
  });
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
  let { resolved } = o;
  const { spec } = resolved;
  if (spec.target.url === 'sim')
    throw new Error('interleaved A/B needs two deployments: set target.url (or --target-url) to the candidate, not "sim"');
  const inputs0 = loadWorkloadInputs(resolved);
  const headers = probeHeaders(resolved);
  const auth = authOf(resolved);
  const [target, base] = await Promise.all([
    waitForReady(spec.target.url, resolved.readyTimeoutMs, headers, { signal: o.signal, auth }),
    waitForReady(o.baselineUrl, resolved.readyTimeoutMs, headers, { signal: o.signal, auth }),
  ]);
  if ('interrupted' in target || 'interrupted' in base) {
    const r = await nothingSent(o, resolved, inputs0, false);
    return { current: r, baseline: r };
  }
  // Both sides must serve the model: the target's list chooses it when the spec names none.
  const served = withServedModel(resolved, target.models, spec.target.url);
  withServedModel(served.resolved, base.models, o.baselineUrl);
  if (served.notice) o.onNotice?.(served.notice);
  resolved = served.resolved;
  const inputs = { ...inputs0, spec: resolved.spec };
  const prepared = await prepareWorkload(inputs, { baseUrl: spec.target.url, headers, timeoutMs: resolved.requestTimeoutMs });
  const { calibration, salt } = prepared.describe().plan;
  const runId = randomBytes(4).toString('hex');
  const runStart = now() + START_LEAD_MS;
  const baselineResolved = { ...resolved, spec: { ...resolved.spec, target: { ...resolved.spec.target, url: o.baselineUrl } } };
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
  let { resolved } = o;
  const { spec } = resolved;
  const simulator = spec.target.url === 'sim';
  const inputs0 = loadWorkloadInputs(resolved); // a bad dataset or length file fails before anything starts
  // The simulator serves the spec's model name, so the same spec runs against it and a real server.
  const sim = simulator ? await launchSim({ ...spec.target.sim, model: spec.target.model }) : undefined;
  let server: ServerWatch | undefined;
  try {
    const baseUrl = sim ? sim.baseUrl : spec.target.url;
    const headers = probeHeaders(resolved);
    const ready = await waitForReady(baseUrl, resolved.readyTimeoutMs, headers, { signal: o.signal, auth: authOf(resolved) });
    if ('interrupted' in ready) return await nothingSent(o, resolved, inputs0, simulator);
    const served = withServedModel(resolved, ready.models, simulator ? 'the simulator' : baseUrl);
    if (served.notice) o.onNotice?.(served.notice);
    resolved = served.resolved;
    const inputs = { ...inputs0, spec: resolved.spec };
    const workload = await unlessAborted(prepareWorkload(inputs, { baseUrl, headers, timeoutMs: resolved.requestTimeoutMs }), o.signal);
    if (workload === undefined || o.signal?.aborted) return await nothingSent(o, resolved, inputs, simulator, workload);
    const runId = randomBytes(4).toString('hex');
    server = await startServerWatch(resolved, baseUrl, headers);
    // A replayed trace is one schedule, not a rate to split, and a conversation's turns and their
    // per-turn figures live in one generator: both run in this thread.
    if ((o.workers ?? 1) > 1 && !workload.schedule && !workload.sessions)
      return await measureInWorkers({
        ...o,
        resolved,
        workers: o.workers!,
        baseUrl,
        simulator,
        workload,
        runId,
        startLeadMs: START_LEAD_MS,
        server,
      });
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
