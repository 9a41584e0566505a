import type { Outcome } from '../client/types.js';
import { METRICS } from '../metrics/definitions.js';
import { delayTail, encodeHistogram, summarizeCounts, summarizeMs, type Histogram } from '../metrics/histogram.js';
import { round3 } from '../numbers.js';
import type { Spec } from '../spec/types.js';
import { TOOL_VERSION } from '../version.js';
import { isLoopbackTarget } from '../spec/url.js';
import { deliveryFloorMs, timestampErrorOf } from './timestamp-error.js';
import type { RunTotals } from './totals.js';
import { RESULT_SCHEMA_VERSION, type Result } from './types.js';
import { deliveredLengths, generatorLimits, validityChecks } from './validity.js';
import { replayLoadLabel } from './replay-checks.js';

/** How the load was made, in words: "open-loop poisson at 15 req/s" or "closed-loop, 8 concurrent". */
export function loadLabel(load: Pick<Spec['load'], 'mode' | 'arrival' | 'rate' | 'concurrency' | 'pattern' | 'soak'>): string {
  if (load.mode === 'closed') return `closed-loop, ${load.concurrency} concurrent`;
  const open = `open-loop ${load.arrival}`;
  const p = load.pattern;
  // The pattern's own words: a spike multiplies load.rate, a ramp and steps give their rates.
  if (p?.kind === 'ramp') return `${open} ramp ${p.from} → ${p.to} req/s over ${p.over}`;
  if (p?.kind === 'steps') return `${open} in steps of ${p.each}: ${p.rates.join(' → ')} req/s`;
  const steady = `${open} at ${load.rate} req/s`;
  if (p?.kind === 'spike') return `${steady}, spike ×${p.multiplier} at ${p.at} for ${p.for}`;
  return load.soak ? `${steady}, soak in ${load.soak.segments} segments` : steady;
}

/** The label of a run, or of several combined, which says how they were combined. */
function runLabel(t: RunTotals, offeredRate: number): string {
  const { load } = t.spec;
  const replay = replayLoadLabel(t.spec);
  if (replay !== null) return t.parts ? `${replay} (${t.parts.count} ${t.parts.how} merged)` : replay;
  if (!t.parts) return loadLabel(load);
  if (t.parts.how === 'threads') return `${loadLabel(load)} · ${t.parts.count} generator threads`;
  // Separate results are named by the rate they were offered together: a forced merge may join different nominal rates.
  return `${loadLabel({ ...load, rate: offeredRate })} (${t.parts.count} ${t.parts.how} merged)`;
}

/**
 * Shares of the window's scheduled requests that ended in 5xx, in 429, or in any failure. A
 * request cancelled by an interruption did not fail (nor succeed): it is not an error, and it
 * stays in the denominator, since it was scheduled. (An interrupted run is invalid anyway.)
 */
export function errorRates(byClass: Record<Outcome, number>, scheduled: number): Result['rates'] {
  const share = (n: number) => (scheduled > 0 ? round3(n / scheduled) : 0);
  return {
    http_5xx: share(byClass.http_5xx),
    http_429: share(byClass.http_429),
    errors: share(scheduled - byClass.ok - (byClass.cancelled ?? 0)),
  };
}

/**
 * The one place a result document is made: from a run's totals (build.ts) or a merge's
 * (merge.ts). Every figure is derived here from counters and histograms. Pure: no clock, no I/O.
 *
 * Rates are counts over the window, n / window_s. Little's law, L = λW: the mean in flight
 * L = ∫ in-flight dt / window; λW = (dispatched / window) · (Σ time in system / dispatched)
 * = Σ time in system / window; their ratio is 1 in a steady window.
 */
export function assembleResult(t: RunTotals): Result {
  const { spec, counts: c } = t;
  const windowMs = t.windowS * 1000;
  const perS = (n: number) => (t.windowS > 0 ? round3(n / t.windowS) : 0);
  const closed = spec.load.mode === 'closed';
  // The realized offered rate (arrivals scheduled in the window), not the nominal one: a Poisson
  // window holds ±√n arrivals by chance, and "achieved vs offered" must not read that as lateness.
  const offered = perS(c.windowScheduled);
  const achieved = perS(c.windowDispatched);
  const meanInFlight = t.windowS > 0 ? c.inFlightIntegral / windowMs : 0;
  const predicted = t.windowS > 0 ? c.windowTimeInSystem / windowMs : 0;
  const littlesRatio = predicted > 0 ? meanInFlight / predicted : null;
  const h = t.histograms;
  const ms = (hist: Histogram | undefined) => (hist ? summarizeMs(hist) : null);
  const tokens = (hist: Histogram | undefined) => (hist ? summarizeCounts(hist) : null);
  const metrics = Object.fromEntries(METRICS.map((m) => [m.key, ms(h[m.histogram])])) as Result['metrics'];
  const poolWait = t.generator.poolWaitMeasured ? delayTail(ms(h.poolWait)) : undefined;
  const windowCpu = t.generator.windowCpu;
  const delivery = deliveryFloorMs(isLoopbackTarget(spec.target.url), t.serverView?.network?.rtt_ms);
  const tokenSource = c.windowOk === 0 ? 'none' : c.usageMissing === 0 ? 'usage' : c.usageMissing === c.windowOk ? 'chunks' : 'mixed';
  const w = t.workload;
  const short = c.windowShortRequests;
  const workload: Result['workload'] = {
    input_tokens: {
      ...(w.inputSpec !== undefined ? { spec: w.inputSpec } : {}),
      requested: tokens(h.requestedPromptTokens),
      delivered: tokens(h.promptTokens),
    },
    output_tokens: {
      ...(w.outputSpec !== undefined ? { spec: w.outputSpec } : {}),
      requested: tokens(h.requestedOutputTokens),
      delivered: tokens(h.outputTokens),
      ...(w.shortfall ? { shortfall: { requests: short, mean_tokens: short > 0 ? round3(c.windowShortTokens / short) : null } } : {}),
    },
    token_source: tokenSource,
    usage_missing: c.usageMissing,
    usage_chunk_mismatch: c.usageChunkMismatch,
    ...(w.plan ? { plan: w.plan } : {}),
  };
  const checks = [
    ...validityChecks(
      {
        mode: spec.load.mode,
        offeredRate: offered,
        achievedRate: achieved,
        scheduleLagP99Ms: metrics.schedule_lag_ms?.p99 ?? null,
        eventLoopDelayP99Ms: t.generator.eventLoopDelayMs.p99,
        busyCpu: windowCpu === undefined ? undefined : (windowCpu?.busy ?? null),
        poolWaitP99Ms: poolWait === undefined ? undefined : (poolWait?.p99 ?? null),
        okSamples: c.windowOk,
        littlesRatio,
        interrupted: t.interrupted,
        workload: deliveredLengths(spec, workload),
      },
      generatorLimits(spec),
    ),
    ...(t.extraChecks ?? []),
  ];
  const s = t.series;

  return {
    schema_version: RESULT_SCHEMA_VERSION,
    tool: { name: 'loadgate', version: TOOL_VERSION },
    created_at: t.createdAt,
    run_id: t.runId,
    spec,
    spec_hash: t.specHash,
    target: t.target,
    environment: t.environment,
    load: {
      mode: spec.load.mode,
      label: runLabel(t, offered),
      arrival: closed ? 'closed-loop' : spec.load.arrival,
      burstiness: spec.load.burstiness,
      concurrency: closed ? spec.load.concurrency : null,
      offered_rate_per_s: offered,
      achieved_rate_per_s: achieved,
      warmup_s: t.warmupS,
      window_s: round3(t.windowS),
      cooldown_s: t.cooldownS,
      interrupted: t.interrupted,
    },
    requests: {
      scheduled: c.scheduled,
      by_class: { ...c.byClass },
      not_reached: t.notReached,
      window: { scheduled: c.windowScheduled, by_class: { ...c.windowByClass } },
      error_samples: t.errorSamples,
      ...t.connections,
    },
    metrics,
    throughput: {
      output_tokens_per_s: perS(c.completedOutputTokens),
      total_tokens_per_s: perS(c.completedOutputTokens + c.completedPromptTokens),
      requests_per_s: perS(c.completedInWindow),
    },
    goodput: {
      slo: { ...spec.slo },
      requests: c.windowGood,
      rate_per_s: perS(c.windowGood),
      fraction: c.windowScheduled > 0 ? round3(c.windowGood / c.windowScheduled) : null,
    },
    rates: errorRates(c.windowByClass, c.windowScheduled),
    workload,
    generator: {
      event_loop_delay_ms: t.generator.eventLoopDelayMs,
      cpu_s: round3(t.generator.cpuS),
      cpu_utilization: round3(t.generator.cpuUtilization),
      heap_mb: round3(t.generator.heapMb),
      rss_mb: round3(t.generator.rssMb),
      ...(windowCpu !== undefined ? { window_cpu: windowCpu } : {}),
      ...(poolWait !== undefined ? { pool_wait_ms: poolWait } : {}),
      ...(t.generator.loopObservedMs !== undefined
        ? { timestamp_error_ms: timestampErrorOf(h, t.generator.loopObservedMs, delivery) }
        : {}),
    },
    littles_law: {
      mean_in_flight: round3(meanInFlight),
      predicted_in_flight: round3(predicted),
      ratio: littlesRatio === null ? null : round3(littlesRatio),
      ...(t.peakInFlight !== undefined ? { peak_in_flight: t.peakInFlight } : {}),
    },
    validity: { valid: checks.every((x) => x.ok), checks },
    timeseries: { interval_s: s.intervalS, sent: s.sent, ok: s.ok, errors: s.errors, output_tokens: s.outputTokens },
    ...(t.segments ? { segments: t.segments } : {}),
    histograms: Object.fromEntries(Object.entries(h).map(([k, v]) => [k, encodeHistogram(v)])),
    definitions: t.definitions,
    ...(t.merge ? { merge: t.merge } : {}),
    ...(t.replicates ? { replicates: t.replicates } : {}),
    ...(t.pattern ? { pattern: t.pattern } : {}),
    ...(t.abort ? { abort: t.abort } : {}),
    ...t.serverView,
  };
}
