import { loadPlan } from '../arrivals/load-plan.js';
import { buildSchedule } from '../arrivals/schedule.js';
import { deriveSeed } from '../rng.js';
import { createClient, observeReadTurns, type RequestHandle } from '../client/client.js';
import { dispatchOpenLoop } from '../dispatch/open-loop.js';
import { dispatchClosedLoop } from '../dispatch/closed-loop.js';
import { Recorder, type RequestRecord } from '../metrics/recorder.js';
import { startLoopProbe } from '../metrics/loop-probe.js';
import { WindowCpuMeter } from '../metrics/window-cpu.js';
import { bucketIntervalMs, PatternRecorder } from '../metrics/pattern-recorder.js';
import { LoopTurnMeter } from '../metrics/loop-turns.js';
import { buildResult } from '../result/build.js';
import { baseRateOf, buildPatternSection, patternFacts } from '../result/pattern.js';
import type { AbortInfo, Result } from '../result/types.js';
import type { ResolvedSpec } from '../spec/types.js';
import { AbortWatch } from './abort-watch.js';
import { now } from '../time.js';
import type { Workload } from '../workload/types.js';
import type { ServerWatch } from './server-view.js';

export interface Progress {
  elapsedS: number;
  totalS: number;
  phase: 'ramp-up' | 'warmup' | 'steady' | 'cooldown' | 'drain';
  sent: number;
  ok: number;
  failed: number;
  inFlight: number;
}

/** One generator's part of a run: a thread's event loop, connection pool and recorder. */
export interface MeasureOptions {
  resolved: ResolvedSpec;
  baseUrl: string;
  simulator: boolean;
  workload: Workload;
  /** Absolute ms at which the schedule starts; every generator of a run shares it. */
  runStart: number;
  /** Prefix of this generator's request ids. */
  runId: string;
  /** This generator's thread index (0 when the run has one thread), prefixed to its records' ids. */
  thread?: number;
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  onRecord?: (r: RequestRecord) => void;
  /** The run's server view (src/run/server-view.ts), when this generator is the run's only one. */
  server?: ServerWatch;
}

/** Extra grace after the request timeout before in-flight requests are cancelled. */
const DRAIN_GRACE_MS = 1000;

/** Warmup, steady window, cooldown and drain against a ready target: the measurement itself. */
export async function measure(o: MeasureOptions): Promise<Result> {
  const { resolved, workload, runStart } = o;
  const { spec } = resolved;
  const client = createClient({
    baseUrl: o.baseUrl,
    api: spec.target.api,
    headers: resolved.headers,
    apiKey: resolved.apiKey,
    timeoutMs: resolved.requestTimeoutMs,
    maxEventBytes: spec.load.max_event_bytes,
  });
  // The timeline and the rate curve (ramp-up, warmup, window, cooldown); closed loop has no ramp-up or pattern.
  const plan = loadPlan(spec.load.mode === 'open' ? resolved : { ...resolved, rampUpMs: 0, pattern: undefined });
  const totalMs = plan.totalMs;
  const rampEnd = runStart + plan.rampUpMs;
  const windowStart = runStart + plan.windowFromMs;
  const windowEnd = runStart + plan.windowToMs;
  const active = new Map<number, InFlight>();
  const pattern = plan.kind === 'steady' ? undefined : new PatternRecorder(runStart, bucketIntervalMs(totalMs), totalMs, plan.phases);
  const watch = resolved.abort ? new AbortWatch(resolved.abort) : undefined;
  let aborted: AbortInfo | undefined;
  const recorder = new Recorder({
    runId: o.runId,
    thread: o.thread ?? 0,
    runStart,
    windowFromMs: plan.windowFromMs,
    windowToMs: plan.windowToMs,
    slo: spec.slo,
    pattern,
    onRecord: (r) => {
      const a = active.get(r.id);
      active.delete(r.id);
      a?.finished?.();
      if (watch && !Number.isNaN(r.tSend)) watch.end(r.tEnd - runStart, r.outcome === 'ok', recorder.inFlight);
      o.onRecord?.(r);
    },
  });

  const turnMeter = new LoopTurnMeter(observeReadTurns);
  const send = (i: number, offsetMs: number, finished?: () => void): void => {
    const w = workload.next(i);
    const rec = recorder.open(i, offsetMs, w.promptTokens, w.maxTokens);
    if (recorder.inFlight >= spec.load.max_in_flight) {
      rec.onEnd(now(), 'dropped', `in-flight cap of ${spec.load.max_in_flight} reached`);
      finished?.();
      return;
    }
    recorder.markSent(rec, now());
    watch?.arrival(rec.tSend - runStart, recorder.inFlight);
    // Closed loop sends as a request ends, never late: there only the loop probe measures lateness.
    if (spec.load.mode === 'open') turnMeter.lateness(rec.tSend - rec.tSched);
    const entry: InFlight = { rec, finished };
    active.set(i, entry);
    entry.handle = client.send(w.body, rec, rec.requestId);
  };

  const probe = startLoopProbe((ms) => turnMeter.lateness(ms));
  const cpu0 = process.cpuUsage();
  const wall0 = now();
  let planned = 0;
  let stop = () => {};
  let dispatched = Promise.resolve(0);
  let spinMs = () => 0;
  // Interrupted before the start (during the readiness wait or calibration): nothing is sent,
  // and the open-loop schedule is accounted for as not reached.
  const startAborted = o.signal?.aborted === true;
  if (spec.load.mode === 'open') {
    const schedule = buildSchedule({
      kind: spec.load.arrival,
      curve: plan.curve,
      burstiness: spec.load.burstiness,
      seed: deriveSeed(spec.workload.seed, 'arrivals'),
      durationMs: totalMs,
    });
    planned = schedule.length;
    if (!startAborted) {
      const h = dispatchOpenLoop({ schedule, runStart, fire: (i) => send(i, schedule[i]) });
      stop = h.stop;
      dispatched = h.done;
      spinMs = h.spinMs;
    }
  } else if (!startAborted) {
    await new Promise((r) => setTimeout(r, Math.max(0, runStart - now())));
    const h = dispatchClosedLoop({
      concurrency: spec.load.concurrency,
      until: runStart + totalMs,
      fire: (i, t, finished) => send(i, t - runStart, finished),
    });
    stop = h.stop;
    dispatched = h.done;
  }

  const cpuMeter = new WindowCpuMeter(spinMs);
  const windowTimers = [
    setTimeout(() => (cpuMeter.start(), turnMeter.start()), windowStart - now()),
    setTimeout(() => cpuMeter.stop(), windowEnd - now()),
  ];
  let interruptedAt = NaN;
  const onAbort = () => {
    interruptedAt = now();
    cpuMeter.stop();
    turnMeter.stop();
    stop();
    cancelAll(active, 'cancelled');
  };
  if (o.signal?.aborted) onAbort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  // load.abort: checked on a timer of 1/20 of its window, so the stop comes within a slot of the rule being met.
  const abortTimer =
    watch &&
    setInterval(
      () => {
        if (aborted || !Number.isNaN(interruptedAt)) return;
        const d = watch.check(now() - runStart, recorder.inFlight);
        if (!d) return;
        aborted = { reason: d.reason, at_s: Math.round(d.atMs) / 1000, detail: d.detail, fail: resolved.abort!.fail };
        onAbort();
      },
      Math.max(20, resolved.abort!.windowMs / 20),
    );
  // Each phase's end: the generator's own memory then, so a client leak shows beside the server's latency.
  const memoryTimers = pattern ? plan.phases.map((p, k) => setTimeout(() => pattern.sampleMemory(k), runStart + p.toMs - now())) : [];
  const progress = setInterval(() => {
    const t = now();
    const phase =
      t < rampEnd ? 'ramp-up' : t < windowStart ? 'warmup' : t < windowEnd ? 'steady' : t < runStart + totalMs ? 'cooldown' : 'drain';
    o.onProgress?.({
      elapsedS: (t - runStart) / 1000,
      totalS: totalMs / 1000,
      phase,
      sent: recorder.sent,
      ok: recorder.byClass.ok,
      failed: recorder.scheduled - recorder.byClass.ok - recorder.inFlight,
      inFlight: recorder.inFlight,
    });
  }, 1000);

  try {
    const fired = await dispatched;
    await drain(active, resolved.requestTimeoutMs + DRAIN_GRACE_MS);
    turnMeter.stop();
    const interrupted = !Number.isNaN(interruptedAt);
    const effectiveEnd = interrupted ? Math.min(windowEnd, interruptedAt) : windowEnd;
    const cpu = process.cpuUsage(cpu0);
    const eventLoopDelayMs = probe.stop();
    const series = recorder.series;
    const serverView = await o.server?.finish({
      runStart,
      windowStart,
      windowEnd: effectiveEnd,
      seriesIntervalS: series.intervalS,
      seriesLength: Math.max(series.sent.length, series.ok.length, series.errors.length),
    });
    return buildResult(recorder, {
      resolved,
      targetUrl: o.simulator ? 'sim' : spec.target.url,
      simulator: o.simulator,
      windowMs: Math.max(0, effectiveEnd - windowStart),
      interrupted,
      notReached: spec.load.mode === 'open' ? planned - fired : 0,
      eventLoopDelayMs,
      cpuS: (cpu.user + cpu.system) / 1e6,
      wallS: (now() - wall0) / 1000,
      windowCpu: cpuMeter.read(),
      loopTurns: turnMeter,
      workers: 1,
      workload: workload.describe(),
      keepAlive: client.keepAlive(),
      pattern: pattern && buildPatternSection(patternFacts(plan, pattern, spec.gate, baseRateOf(spec.load), spikeOf(resolved))),
      abort: aborted,
      serverView,
    });
  } finally {
    clearInterval(progress);
    clearInterval(abortTimer);
    windowTimers.forEach(clearTimeout);
    memoryTimers.forEach(clearTimeout);
    turnMeter.close();
    o.signal?.removeEventListener('abort', onAbort);
    await client.close();
  }
}

const spikeOf = (r: ResolvedSpec) => (r.pattern?.kind === 'spike' ? { atMs: r.pattern.atMs, forMs: r.pattern.forMs } : undefined);

interface InFlight {
  rec: RequestRecord;
  handle?: RequestHandle;
  finished?: () => void;
}

function cancelAll(active: Map<number, InFlight>, reason: 'cancelled' | 'timeout'): void {
  for (const a of [...active.values()]) a.handle?.abort(reason);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits for every in-flight request to end. Past the deadline (every request's own timer has
 * fired by then) the stragglers are ended as timed out; one the client fails to end within a
 * further grace is ended here, so the counts always add up.
 */
async function drain(active: Map<number, InFlight>, deadlineMs: number): Promise<void> {
  const cancelAt = now() + deadlineMs;
  while (active.size > 0 && now() < cancelAt) await sleep(10);
  if (active.size === 0) return;
  cancelAll(active, 'timeout');
  const forceAt = now() + DRAIN_GRACE_MS;
  while (active.size > 0 && now() < forceAt) await sleep(10);
  for (const a of [...active.values()]) a.rec.onEnd(now(), 'timeout', 'not ended after cancellation');
}
