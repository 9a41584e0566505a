import { appendAll } from '../numbers.js';
import { loadPlan, type LoadPlan } from '../arrivals/load-plan.js';
import { buildSchedule } from '../arrivals/schedule.js';
import { deriveSeed } from '../rng.js';
import { createClient, observeReadTurns, type Client, type RequestHandle } from '../client/client.js';
import { dispatchOpenLoop } from '../dispatch/open-loop.js';
import { dispatchClosedLoop } from '../dispatch/closed-loop.js';
import { Recorder, type RequestRecord } from '../metrics/recorder.js';
import { startLoopProbe } from '../metrics/loop-probe.js';
import type { DelayTail } from '../metrics/histogram.js';
import { WindowCpuMeter } from '../metrics/window-cpu.js';
import { bucketIntervalMs, PatternRecorder } from '../metrics/pattern-recorder.js';
import { LoopTurnMeter } from '../metrics/loop-turns.js';
import { buildResult } from '../result/build.js';
import { baseRateOf, buildPatternSection, patternFacts } from '../result/pattern.js';
import type { AbortInfo, Result } from '../result/types.js';
import type { ResolvedSpec } from '../spec/types.js';
import { AbortWatch } from './abort-watch.js';
import { now } from '../time.js';
import type { WorkItem, Workload } from '../workload/types.js';
import { scheduleWithin } from '../arrivals/trace.js';
import { runSessions } from './sessions.js';
import { collectFullyIfTuned } from './gc-flags.js';
import type { ServerWatch } from './server-watch.js';

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
  /** The run's server view (src/run/server-watch.ts), when this generator is the run's only one. */
  server?: ServerWatch;
}

/** Extra grace after the request timeout before in-flight requests are cancelled. */
const DRAIN_GRACE_MS = 1000;

/**
 * How long before its window opens a generator thread collects its heap in full
 * (collectFullyIfTuned): enough for the pause (tens of ms) and the reads queued behind it to pass
 * before the window's first arrival. A warmup shorter than twice this has its collection before
 * the load starts instead.
 */
const COLLECT_LEAD_MS = 300;

/** Whether the warmup is too short for the collection's lead, so it comes before the load starts. */
const collectsBeforeLoad = (plan: LoadPlan): boolean => plan.windowFromMs < 2 * COLLECT_LEAD_MS;

/**
 * Warmup, steady window, cooldown and drain against a ready target: the measurement itself.
 * Open loop takes every request's intended time from the schedule computed up front, never from
 * when an earlier one ended, so a slow target cannot thin the load it is measured under.
 */
export async function measure(o: MeasureOptions): Promise<Result> {
  const plan = planOf(o.resolved);
  if (collectsBeforeLoad(plan)) collectFullyIfTuned();
  const g = openGenerator(o, plan);
  const costs = startCosts(g.turnMeter);
  const dispatch = await startDispatcher(o, plan, g.send);
  const phases = armPhaseTimers(o.runStart, plan, g, dispatch.spinMs);
  const stop = stopOnSignal(o.signal, () => {
    phases.cpuMeter.stop();
    g.turnMeter.stop();
    dispatch.stop();
    cancelAll(g.active, 'cancelled');
  });
  const abortTimer = armAbortRule(o, g, stop);
  const progress = reportProgress(o, plan, g.recorder);
  try {
    const fired = await dispatch.done;
    await drain(g.active, o.resolved.requestTimeoutMs + DRAIN_GRACE_MS);
    g.turnMeter.stop();
    return await resultOf(o, plan, g, { planned: dispatch.planned, fired, stop, costs, windowCpu: phases.cpuMeter });
  } finally {
    clearInterval(progress);
    clearInterval(abortTimer);
    phases.timers.forEach(clearTimeout);
    g.turnMeter.close();
    stop.dispose();
    await g.client.close();
  }
}

/** The timeline and the rate curve (ramp-up, warmup, window, cooldown); closed loop has no ramp-up or pattern. */
const planOf = (resolved: ResolvedSpec): LoadPlan =>
  loadPlan(resolved.spec.load.mode === 'open' ? resolved : { ...resolved, rampUpMs: 0, pattern: undefined });

/** Sends request i, intended at offsetMs from the run's start; `finished` tells a closed loop it ended. */
type Send = (i: number, offsetMs: number, finished?: (r: RequestRecord) => void, item?: WorkItem, capture?: (text: string) => void) => void;

/** What one generator's requests go through: the client, the recorder and the requests in flight. */
interface Generator {
  client: Client;
  recorder: Recorder;
  active: Map<number, InFlight>;
  pattern?: PatternRecorder;
  watch?: AbortWatch;
  turnMeter: LoopTurnMeter;
  send: Send;
}

function openGenerator(o: MeasureOptions, plan: LoadPlan): Generator {
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
  const active = new Map<number, InFlight>();
  const pattern =
    plan.kind === 'steady' ? undefined : new PatternRecorder(runStart, bucketIntervalMs(plan.totalMs), plan.totalMs, plan.phases);
  const watch = resolved.abort ? new AbortWatch(resolved.abort) : undefined;
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
      a?.finished?.(r);
      if (watch && !Number.isNaN(r.tSend)) watch.end(r.tEnd - runStart, r.outcome === 'ok', recorder.inFlight);
      o.onRecord?.(r);
    },
  });
  const turnMeter = new LoopTurnMeter(observeReadTurns);
  const send: Send = (i, offsetMs, finished, item, capture) => {
    const w = item ?? workload.next(i);
    const rec = recorder.open(i, offsetMs, w.promptTokens, w.maxTokens);
    if (recorder.inFlight >= spec.load.max_in_flight) {
      rec.onEnd(now(), 'dropped', `in-flight cap of ${spec.load.max_in_flight} reached`);
      finished?.(rec);
      return;
    }
    recorder.markSent(rec, now());
    watch?.arrival(rec.tSend - runStart, recorder.inFlight);
    // Closed loop sends as a request ends, never late: there only the loop probe measures lateness.
    if (spec.load.mode === 'open') turnMeter.lateness(rec.tSend - rec.tSched);
    const entry: InFlight = { rec, finished };
    active.set(i, entry);
    entry.handle = client.send(w.body, rec, rec.requestId, capture);
  };
  return { client, recorder, active, pattern, watch, turnMeter, send };
}

/** The generator's own costs from the start: event-loop delay, CPU time and wall time. */
interface Costs {
  probe: { stop(): DelayTail };
  cpu0: NodeJS.CpuUsage;
  wall0: number;
}

const startCosts = (turnMeter: LoopTurnMeter): Costs => ({
  probe: startLoopProbe((ms) => turnMeter.lateness(ms)),
  cpu0: process.cpuUsage(),
  wall0: now(),
});

interface Dispatch {
  /** Arrivals the open-loop schedule holds (closed loop plans none). */
  planned: number;
  stop: () => void;
  /** Resolves with the number of arrivals fired. */
  done: Promise<number>;
  spinMs: () => number;
}

/** Starts the open-loop dispatcher on the seeded schedule, or the closed loop at the run's start. */
async function startDispatcher(o: MeasureOptions, plan: LoadPlan, send: Send): Promise<Dispatch> {
  const { spec } = o.resolved;
  const idle: Dispatch = { planned: 0, stop: () => {}, done: Promise.resolve(0), spinMs: () => 0 };
  // Interrupted before the start (during the readiness wait or calibration): nothing is sent,
  // and the open-loop schedule is accounted for as not reached.
  const startAborted = o.signal?.aborted === true;
  if (spec.load.mode === 'open') {
    // A replayed trace brings its own arrival times (src/arrivals/trace.ts); sessions start on the schedule.
    const { workload } = o;
    const schedule = workload.schedule
      ? scheduleWithin(workload.schedule, plan.totalMs)
      : buildSchedule({
          kind: spec.load.arrival,
          curve: plan.curve,
          burstiness: spec.load.burstiness,
          seed: deriveSeed(spec.workload.seed, 'arrivals'),
          durationMs: plan.totalMs,
        });
    if (startAborted) return { ...idle, planned: schedule.length };
    const h = workload.sessions
      ? runSessions({ source: workload.sessions, starts: schedule, runStart: o.runStart, until: o.runStart + plan.totalMs, send })
      : dispatchOpenLoop({ schedule, runStart: o.runStart, fire: (i) => send(i, schedule[i]) });
    return { planned: schedule.length, stop: h.stop, done: h.done, spinMs: h.spinMs };
  }
  if (startAborted) return idle;
  await new Promise((r) => setTimeout(r, Math.max(0, o.runStart - now())));
  const h = dispatchClosedLoop({
    concurrency: spec.load.concurrency,
    until: o.runStart + plan.totalMs,
    fire: (i, t, finished) => send(i, t - o.runStart, finished),
  });
  return { ...idle, stop: h.stop, done: h.done };
}

/**
 * The window's CPU and loop-turn meters, started and stopped at the window's edges; the full
 * collection just before it opens; and at each phase's end the generator's own memory, so a
 * client leak shows beside the server's latency.
 */
function armPhaseTimers(runStart: number, plan: LoadPlan, g: Generator, spinMs: () => number) {
  const cpuMeter = new WindowCpuMeter(spinMs);
  const timers = [
    setTimeout(() => (cpuMeter.start(), g.turnMeter.start()), runStart + plan.windowFromMs - now()),
    setTimeout(() => cpuMeter.stop(), runStart + plan.windowToMs - now()),
  ];
  if (!collectsBeforeLoad(plan)) timers.push(setTimeout(collectFullyIfTuned, runStart + plan.windowFromMs - COLLECT_LEAD_MS - now()));
  const { pattern } = g;
  if (pattern)
    appendAll(
      timers,
      plan.phases.map((p, k) => setTimeout(() => pattern.sampleMemory(k), runStart + p.toMs - now())),
    );
  return { cpuMeter, timers };
}

/** Stopping the load early, by the run's signal or by the load.abort rule. */
interface Stop {
  /** When the load was stopped; NaN while it runs to its end. */
  at: number;
  /** The load.abort rule's decision, when the rule stopped it. */
  aborted?: AbortInfo;
  now: () => void;
  dispose: () => void;
}

function stopOnSignal(signal: AbortSignal | undefined, halt: () => void): Stop {
  const stop: Stop = {
    at: NaN,
    now: () => {
      stop.at = now();
      halt();
    },
    dispose: () => signal?.removeEventListener('abort', stop.now),
  };
  if (signal?.aborted) stop.now();
  signal?.addEventListener('abort', stop.now, { once: true });
  return stop;
}

/** load.abort: checked on a timer of 1/20 of its window, so the stop comes within a slot of the rule being met. */
function armAbortRule(o: MeasureOptions, g: Generator, stop: Stop): NodeJS.Timeout | undefined {
  const rule = o.resolved.abort;
  const watch = g.watch;
  if (!rule || !watch) return undefined;
  return setInterval(
    () => {
      if (stop.aborted || !Number.isNaN(stop.at)) return;
      const d = watch.check(now() - o.runStart, g.recorder.inFlight);
      if (!d) return;
      stop.aborted = { reason: d.reason, at_s: Math.round(d.atMs) / 1000, detail: d.detail, fail: rule.fail };
      stop.now();
    },
    Math.max(20, rule.windowMs / 20),
  );
}

/** Once a second: where the run is, and how many requests were sent, succeeded, failed and are in flight. */
function reportProgress(o: MeasureOptions, plan: LoadPlan, recorder: Recorder): NodeJS.Timeout {
  const { runStart } = o;
  const { totalMs } = plan;
  return setInterval(() => {
    const t = now() - runStart;
    const phase =
      t < plan.rampUpMs
        ? 'ramp-up'
        : t < plan.windowFromMs
          ? 'warmup'
          : t < plan.windowToMs
            ? 'steady'
            : t < totalMs
              ? 'cooldown'
              : 'drain';
    o.onProgress?.({
      elapsedS: t / 1000,
      totalS: totalMs / 1000,
      phase,
      sent: recorder.sent,
      ok: recorder.byClass.ok,
      failed: recorder.scheduled - recorder.byClass.ok - recorder.inFlight,
      inFlight: recorder.inFlight,
    });
  }, 1000);
}

interface Ending {
  /** The open-loop schedule's arrivals, and how many the dispatcher fired before it ended or was stopped. */
  planned: number;
  fired: number;
  stop: Stop;
  costs: Costs;
  windowCpu: WindowCpuMeter;
}

/** The result, once every request has ended: the window ends where the run was stopped, if inside it. */
async function resultOf(o: MeasureOptions, plan: LoadPlan, g: Generator, e: Ending): Promise<Result> {
  const { resolved, runStart } = o;
  const { spec } = resolved;
  const windowStart = runStart + plan.windowFromMs;
  const windowEnd = runStart + plan.windowToMs;
  const interrupted = !Number.isNaN(e.stop.at);
  const effectiveEnd = interrupted ? Math.min(windowEnd, e.stop.at) : windowEnd;
  const cpu = process.cpuUsage(e.costs.cpu0);
  const eventLoopDelayMs = e.costs.probe.stop();
  const series = g.recorder.series;
  const serverView = await o.server?.finish({
    runStart,
    windowStart,
    windowEnd: effectiveEnd,
    seriesIntervalS: series.intervalS,
    seriesLength: Math.max(series.sent.length, series.ok.length, series.errors.length),
  });
  o.workload.sessions?.serverHitRate(serverView?.server?.summary.prefix_cache_hit_rate ?? null);
  const { pattern } = g;
  return buildResult(g.recorder, {
    resolved,
    targetUrl: o.simulator ? 'sim' : spec.target.url,
    simulator: o.simulator,
    windowMs: Math.max(0, effectiveEnd - windowStart),
    interrupted,
    notReached: spec.load.mode === 'open' ? e.planned - e.fired : 0,
    eventLoopDelayMs,
    cpuS: (cpu.user + cpu.system) / 1e6,
    wallS: (now() - e.costs.wall0) / 1000,
    windowCpu: e.windowCpu.read(),
    loopTurns: g.turnMeter,
    workers: 1,
    workload: o.workload.describe(),
    keepAlive: g.client.keepAlive(),
    pattern: pattern && buildPatternSection(patternFacts(plan, pattern, spec.gate, baseRateOf(spec.load), spikeOf(resolved))),
    abort: e.stop.aborted,
    serverView,
  });
}

const spikeOf = (r: ResolvedSpec) => (r.pattern?.kind === 'spike' ? { atMs: r.pattern.atMs, forMs: r.pattern.forMs } : undefined);

interface InFlight {
  rec: RequestRecord;
  handle?: RequestHandle;
  finished?: (r: RequestRecord) => void;
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
