import type { Outcome } from '../client/types.js';
import os from 'node:os';
import type { Recorder } from '../metrics/recorder.js';
import type { WindowCpu } from '../metrics/window-cpu.js';
import { delayTail, encodeHistogram, summarizeCounts, summarizeMs, type DelayTail } from '../metrics/histogram.js';
import { DEFINITIONS } from '../metrics/definitions.js';
import type { ResolvedSpec } from '../spec/types.js';
import type { WorkloadFacts } from '../workload/workload.js';
import { RESULT_SCHEMA_VERSION, type Result } from './types.js';
import { deliveredLengths, generatorLimits, validityChecks } from './validity.js';
import { TOOL_VERSION } from '../version.js';

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
  workers: number;
  /** The workload generator's account of itself; absent when a result is built without one (tests). */
  workload?: WorkloadFacts;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Turns what the recorder saw into the versioned result document. Pure apart from reading host facts. */
export function buildResult(rec: Recorder, f: RunFacts): Result {
  const { spec } = f.resolved;
  const windowS = f.windowMs / 1000;
  const perS = (n: number) => (windowS > 0 ? r3(n / windowS) : 0);
  const h = rec.h;
  const closed = spec.load.mode === 'closed';
  // The realized offered rate (arrivals scheduled in the window), not the nominal one: a Poisson
  // window holds ±√n arrivals by chance, and "achieved vs offered" must not read that as lateness.
  const offered = perS(rec.windowScheduled);
  const achieved = perS(rec.windowDispatched);
  const meanInFlight = windowS > 0 ? rec.inFlightIntegral / f.windowMs : 0;
  const meanTimeInSystemMs = rec.windowDispatched > 0 ? rec.windowTimeInSystem / rec.windowDispatched : 0;
  const predicted = (achieved * meanTimeInSystemMs) / 1000;
  const littlesRatio = predicted > 0 ? meanInFlight / predicted : null;
  const lag = summarizeMs(h.scheduleLag);
  const poolWait = delayTail(summarizeMs(h.poolWait));
  const wbc = rec.windowByClass;
  const ws = rec.windowScheduled;
  const tokenSource =
    rec.windowOk === 0 ? 'none' : rec.usageMissing === 0 ? 'usage' : rec.usageMissing === rec.windowOk ? 'chunks' : 'mixed';
  const workload = workloadSection(rec, tokenSource, f.workload);

  return {
    schema_version: RESULT_SCHEMA_VERSION,
    tool: { name: 'loadgate', version: TOOL_VERSION },
    created_at: new Date().toISOString(),
    run_id: rec.o.runId,
    spec,
    spec_hash: f.resolved.hash,
    target: { url: f.targetUrl, api: spec.target.api, model: spec.target.model, simulator: f.simulator },
    environment: {
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? 'unknown',
      workers: f.workers,
    },
    load: {
      mode: spec.load.mode,
      label: closed ? `closed-loop, ${spec.load.concurrency} concurrent` : `open-loop ${spec.load.arrival} at ${spec.load.rate} req/s`,
      arrival: closed ? 'closed-loop' : spec.load.arrival,
      burstiness: spec.load.burstiness,
      concurrency: closed ? spec.load.concurrency : null,
      offered_rate_per_s: offered,
      achieved_rate_per_s: achieved,
      warmup_s: f.resolved.warmupMs / 1000,
      window_s: r3(windowS),
      cooldown_s: f.resolved.cooldownMs / 1000,
      interrupted: f.interrupted,
    },
    requests: {
      scheduled: rec.scheduled,
      by_class: { ...rec.byClass },
      not_reached: f.notReached,
      window: { scheduled: ws, by_class: { ...wbc } },
      error_samples: [...rec.errorSamples.values()].map((e) => ({ class: e.outcome, detail: e.detail, count: e.count })),
    },
    metrics: {
      ttft_ms: summarizeMs(h.ttft),
      ttft_from_send_ms: summarizeMs(h.ttftFromSend),
      time_to_first_answer_ms: summarizeMs(h.timeToFirstAnswer),
      tpot_ms: summarizeMs(h.tpot),
      itl_ms: summarizeMs(h.itl),
      e2e_ms: summarizeMs(h.e2e),
      normalized_latency_ms: summarizeMs(h.normalized),
      schedule_lag_ms: lag,
    },
    throughput: {
      output_tokens_per_s: perS(rec.completedOutputTokens),
      total_tokens_per_s: perS(rec.completedOutputTokens + rec.completedPromptTokens),
      requests_per_s: perS(rec.completedInWindow),
    },
    goodput: {
      slo: { ...spec.slo },
      requests: rec.windowGood,
      rate_per_s: perS(rec.windowGood),
      fraction: ws > 0 ? r3(rec.windowGood / ws) : null,
    },
    rates: errorRates(wbc, ws),
    workload,
    generator: {
      event_loop_delay_ms: f.eventLoopDelayMs,
      cpu_s: r3(f.cpuS),
      cpu_utilization: f.wallS > 0 ? r3(f.cpuS / f.wallS) : 0,
      heap_mb: r3(process.memoryUsage().heapUsed / 2 ** 20),
      rss_mb: r3(process.memoryUsage.rss() / 2 ** 20),
      window_cpu: f.windowCpu,
      pool_wait_ms: poolWait,
    },
    littles_law: {
      mean_in_flight: r3(meanInFlight),
      predicted_in_flight: r3(predicted),
      ratio: littlesRatio === null ? null : r3(littlesRatio),
    },
    validity: (() => {
      const checks = validityChecks(
        {
          mode: spec.load.mode,
          offeredRate: offered,
          achievedRate: achieved,
          scheduleLagP99Ms: lag?.p99 ?? null,
          eventLoopDelayP99Ms: f.eventLoopDelayMs.p99,
          busyCpu: f.windowCpu?.busy ?? null,
          poolWaitP99Ms: poolWait?.p99 ?? null,
          okSamples: rec.windowOk,
          littlesRatio,
          interrupted: f.interrupted,
          workload: deliveredLengths(spec, workload),
        },
        generatorLimits(spec),
      );
      return { valid: checks.every((c) => c.ok), checks };
    })(),
    timeseries: {
      interval_s: rec.series.intervalS,
      sent: rec.series.sent,
      ok: rec.series.ok,
      errors: rec.series.errors,
      output_tokens: rec.series.outputTokens,
    },
    histograms: Object.fromEntries(Object.entries(h).map(([k, v]) => [k, encodeHistogram(v)])),
    definitions: DEFINITIONS,
  };
}

/**
 * Lengths asked for beside lengths delivered. A run's generator adds the spec's own
 * distributions, the output shortfall and its plan; a result built without one keeps the
 * plain section (which merge.ts reproduces exactly).
 */
function workloadSection(rec: Recorder, tokenSource: Result['workload']['token_source'], w: WorkloadFacts | undefined): Result['workload'] {
  const h = rec.h;
  const input = { requested: summarizeCounts(h.requestedPromptTokens), delivered: summarizeCounts(h.promptTokens) };
  const output = { requested: summarizeCounts(h.requestedOutputTokens), delivered: summarizeCounts(h.outputTokens) };
  const counts = { token_source: tokenSource, usage_missing: rec.usageMissing, usage_chunk_mismatch: rec.usageChunkMismatch };
  if (!w) return { input_tokens: input, output_tokens: output, ...counts };
  const short = rec.windowShortRequests;
  return {
    input_tokens: { spec: w.inputSpec, ...input },
    output_tokens: {
      spec: w.outputSpec,
      ...output,
      shortfall: { requests: short, mean_tokens: short > 0 ? r3(rec.windowShortTokens / short) : null },
    },
    ...counts,
    plan: w.plan,
  };
}

/** Shares of the window's scheduled requests that ended in 5xx, in 429, or in any failure. */
export function errorRates(byClass: Record<Outcome, number>, scheduled: number): Result['rates'] {
  const share = (n: number) => (scheduled > 0 ? r3(n / scheduled) : 0);
  return { http_5xx: share(byClass.http_5xx), http_429: share(byClass.http_429), errors: share(scheduled - byClass.ok) };
}
