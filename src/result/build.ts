import os from 'node:os';
import type { KeepAliveFacts } from '../client/keep-alive.js';
import { DEFINITIONS } from '../metrics/definitions.js';
import type { DelayTail } from '../metrics/histogram.js';
import type { Recorder } from '../metrics/recorder.js';
import type { LoopTurnMeter } from '../metrics/loop-turns.js';
import type { WindowCpu } from '../metrics/window-cpu.js';
import { modelOf } from '../spec/model.js';
import type { ResolvedSpec } from '../spec/types.js';
import type { WorkloadFacts } from '../workload/types.js';
import { assembleResult } from './assemble.js';
import { connectionFacts } from './connections.js';
import { timestampErrorHistograms } from './timestamp-error.js';
import type { ServerView } from './server-view.js';
import { segmentsSection } from './segments.js';
import { replayChecks } from './replay-checks.js';
import type { RunTotals } from './totals.js';
import type { AbortInfo, Result } from './types.js';
import type { PatternSection } from './pattern.js';

export interface RunFacts {
  resolved: ResolvedSpec;
  targetUrl: string;
  simulator: boolean;
  /** Length of the measured window actually covered (shorter when interrupted), ms. */
  windowMs: number;
  interrupted: boolean;
  notReached: number;
  eventLoopDelayMs: DelayTail;
  cpuS: number;
  wallS: number;
  windowCpu: WindowCpu | null;
  /** The event loop's read turns and lateness: the timestamp error bound. Absent when a result is built without a loop (tests). */
  loopTurns?: LoopTurnMeter;
  workers: number;
  /** The workload generator's account of itself; absent when a result is built without one (tests). */
  workload?: WorkloadFacts;
  /** The HTTP client's account of keep-alive; absent when a result is built without a client (tests). */
  keepAlive?: KeepAliveFacts;
  /** A time-varying load's section (result/pattern.ts buildPatternSection); absent for a steady rate. */
  pattern?: PatternSection;
  abort?: AbortInfo;
  /** The server view and network probe of the run (src/result/server-view.ts); absent when not measured. */
  serverView?: ServerView;
}

/** What one generator's recorder saw, with the run's facts and the host's: the totals of one run. */
export function recorderTotals(rec: Recorder, f: RunFacts): RunTotals {
  const { spec } = f.resolved;
  const w = f.workload;
  return {
    runId: rec.o.runId,
    createdAt: new Date().toISOString(),
    spec,
    specHash: f.resolved.hash,
    target: { url: f.targetUrl, api: spec.target.api, model: modelOf(spec), simulator: f.simulator },
    environment: {
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? 'unknown',
      workers: f.workers,
    },
    warmupS: f.resolved.warmupMs / 1000,
    cooldownS: f.resolved.cooldownMs / 1000,
    windowS: f.windowMs / 1000,
    interrupted: f.interrupted,
    notReached: f.notReached,
    counts: rec,
    peakInFlight: rec.inFlightPeak,
    errorSamples: [...rec.errorSamples.values()].map((e) => ({ class: e.outcome, detail: e.detail, count: e.count })),
    histograms: f.loopTurns ? { ...rec.h, ...timestampErrorHistograms(f.loopTurns) } : rec.h,
    segments: segmentsSection(rec.segments),
    series: rec.series,
    generator: {
      eventLoopDelayMs: f.eventLoopDelayMs,
      cpuS: f.cpuS,
      cpuUtilization: f.wallS > 0 ? f.cpuS / f.wallS : 0,
      heapMb: process.memoryUsage().heapUsed / 2 ** 20,
      rssMb: process.memoryUsage.rss() / 2 ** 20,
      windowCpu: f.windowCpu,
      poolWaitMeasured: true,
      loopObservedMs: f.loopTurns?.observedMs,
    },
    // A run's generator adds the spec's own distributions, the output shortfall and its plan.
    workload: w ? { inputSpec: w.inputSpec, outputSpec: w.outputSpec, plan: w.plan, shortfall: true } : { shortfall: false },
    definitions: DEFINITIONS,
    connections: connectionFacts(rec.reconnects, f.keepAlive),
    ...(f.pattern ? { pattern: f.pattern } : {}),
    ...(f.abort ? { abort: f.abort } : {}),
    ...(f.serverView ? { serverView: f.serverView } : {}),
    extraChecks: replayChecks(w?.plan, rec.h),
  };
}

/** Turns what the recorder saw into the versioned result document. */
export function buildResult(rec: Recorder, f: RunFacts): Result {
  return assembleResult(recorderTotals(rec, f));
}
