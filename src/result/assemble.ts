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

/** How many per second of the window (0 for an empty window). */
const perSecondOf =
  (t: RunTotals) =>
  (n: number): number =>
    t.windowS > 0 ? round3(n / t.windowS) : 0;

/**
 * The one place a result document is made: from a run's totals (build.ts) or a merge's
 * (merge.ts). Every figure is derived here from counters and histograms. Pure: no clock, no I/O.
 */
export function assembleResult(t: RunTotals): Result {
  const { spec } = t;
  const rates = windowRates(t);
  const h = t.histograms;
  const metrics = Object.fromEntries(METRICS.map((m) => [m.key, msOf(h[m.histogram])])) as Result['metrics'];
  const poolWait = t.generator.poolWaitMeasured ? delayTail(msOf(h.poolWait)) : undefined;
  const workload = workloadSection(t);
  const checks = checksOf(t, rates, metrics, poolWait, workload);
  return {
    schema_version: RESULT_SCHEMA_VERSION,
    tool: { name: 'loadgate', version: TOOL_VERSION },
    created_at: t.createdAt,
    run_id: t.runId,
    spec,
    spec_hash: t.specHash,
    target: t.target,
    environment: t.environment,
    load: loadSection(t, rates),
    requests: requestsSection(t),
    metrics,
    throughput: throughputSection(t),
    goodput: goodputSection(t),
    rates: errorRates(t.counts.windowByClass, t.counts.windowScheduled),
    workload,
    generator: generatorSection(t, poolWait),
    littles_law: {
      mean_in_flight: round3(rates.meanInFlight),
      predicted_in_flight: round3(rates.predicted),
      ratio: rates.littlesRatio === null ? null : round3(rates.littlesRatio),
      ...(t.peakInFlight !== undefined ? { peak_in_flight: t.peakInFlight } : {}),
    },
    validity: { valid: checks.every((x) => x.ok), checks },
    timeseries: timeseriesSection(t.series),
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

const msOf = (hist: Histogram | undefined) => (hist ? summarizeMs(hist) : null);
const tokensOf = (hist: Histogram | undefined) => (hist ? summarizeCounts(hist) : null);

interface WindowRates {
  offered: number;
  achieved: number;
  meanInFlight: number;
  predicted: number;
  littlesRatio: number | null;
}

/**
 * The window's offered and achieved rates and Little's law. Rates are counts over the window,
 * n / window_s. Little's law, L = λW: the mean in flight L = ∫ in-flight dt / window;
 * λW = (dispatched / window) · (Σ time in system / dispatched) = Σ time in system / window;
 * their ratio is 1 in a steady window.
 */
function windowRates(t: RunTotals): WindowRates {
  const c = t.counts;
  const perS = perSecondOf(t);
  const windowMs = t.windowS * 1000;
  // The realized offered rate (arrivals scheduled in the window), not the nominal one: a Poisson
  // window holds ±√n arrivals by chance, and "achieved vs offered" must not read that as lateness.
  const offered = perS(c.windowScheduled);
  const achieved = perS(c.windowDispatched);
  const meanInFlight = t.windowS > 0 ? c.inFlightIntegral / windowMs : 0;
  const predicted = t.windowS > 0 ? c.windowTimeInSystem / windowMs : 0;
  const littlesRatio = predicted > 0 ? meanInFlight / predicted : null;
  return { offered, achieved, meanInFlight, predicted, littlesRatio };
}

function loadSection(t: RunTotals, rates: WindowRates): Result['load'] {
  const { spec } = t;
  const closed = spec.load.mode === 'closed';
  return {
    mode: spec.load.mode,
    label: runLabel(t, rates.offered),
    arrival: closed ? 'closed-loop' : spec.load.arrival,
    burstiness: spec.load.burstiness,
    concurrency: closed ? spec.load.concurrency : null,
    offered_rate_per_s: rates.offered,
    achieved_rate_per_s: rates.achieved,
    warmup_s: t.warmupS,
    window_s: round3(t.windowS),
    cooldown_s: t.cooldownS,
    interrupted: t.interrupted,
  };
}

function requestsSection(t: RunTotals): Result['requests'] {
  const c = t.counts;
  return {
    scheduled: c.scheduled,
    by_class: { ...c.byClass },
    not_reached: t.notReached,
    window: { scheduled: c.windowScheduled, by_class: { ...c.windowByClass } },
    error_samples: t.errorSamples,
    ...t.connections,
  };
}

function throughputSection(t: RunTotals): Result['throughput'] {
  const c = t.counts;
  const perS = perSecondOf(t);
  return {
    output_tokens_per_s: perS(c.completedOutputTokens),
    total_tokens_per_s: perS(c.completedOutputTokens + c.completedPromptTokens),
    requests_per_s: perS(c.completedInWindow),
  };
}

function goodputSection(t: RunTotals): Result['goodput'] {
  const c = t.counts;
  return {
    slo: { ...t.spec.slo },
    requests: c.windowGood,
    rate_per_s: perSecondOf(t)(c.windowGood),
    fraction: c.windowScheduled > 0 ? round3(c.windowGood / c.windowScheduled) : null,
  };
}

function workloadSection(t: RunTotals): Result['workload'] {
  const { counts: c, histograms: h, workload: w } = t;
  const tokenSource = c.windowOk === 0 ? 'none' : c.usageMissing === 0 ? 'usage' : c.usageMissing === c.windowOk ? 'chunks' : 'mixed';
  const short = c.windowShortRequests;
  return {
    input_tokens: {
      ...(w.inputSpec !== undefined ? { spec: w.inputSpec } : {}),
      requested: tokensOf(h.requestedPromptTokens),
      delivered: tokensOf(h.promptTokens),
    },
    output_tokens: {
      ...(w.outputSpec !== undefined ? { spec: w.outputSpec } : {}),
      requested: tokensOf(h.requestedOutputTokens),
      delivered: tokensOf(h.outputTokens),
      ...(w.shortfall ? { shortfall: { requests: short, mean_tokens: short > 0 ? round3(c.windowShortTokens / short) : null } } : {}),
    },
    token_source: tokenSource,
    usage_missing: c.usageMissing,
    usage_chunk_mismatch: c.usageChunkMismatch,
    ...(w.plan ? { plan: w.plan } : {}),
  };
}

function checksOf(
  t: RunTotals,
  rates: WindowRates,
  metrics: Result['metrics'],
  poolWait: Result['generator']['pool_wait_ms'],
  workload: Result['workload'],
): Result['validity']['checks'] {
  const { spec } = t;
  const windowCpu = t.generator.windowCpu;
  return [
    ...validityChecks(
      {
        mode: spec.load.mode,
        offeredRate: rates.offered,
        achievedRate: rates.achieved,
        scheduleLagP99Ms: metrics.schedule_lag_ms?.p99 ?? null,
        eventLoopDelayP99Ms: t.generator.eventLoopDelayMs.p99,
        busyCpu: windowCpu === undefined ? undefined : (windowCpu?.busy ?? null),
        poolWaitP99Ms: poolWait === undefined ? undefined : (poolWait?.p99 ?? null),
        okSamples: t.counts.windowOk,
        littlesRatio: rates.littlesRatio,
        interrupted: t.interrupted,
        workload: deliveredLengths(spec, workload),
      },
      generatorLimits(spec),
    ),
    ...(t.extraChecks ?? []),
  ];
}

function generatorSection(t: RunTotals, poolWait: Result['generator']['pool_wait_ms']): Result['generator'] {
  const g = t.generator;
  const delivery = deliveryFloorMs(isLoopbackTarget(t.spec.target.url), t.serverView?.network?.rtt_ms);
  return {
    event_loop_delay_ms: g.eventLoopDelayMs,
    cpu_s: round3(g.cpuS),
    cpu_utilization: round3(g.cpuUtilization),
    heap_mb: round3(g.heapMb),
    rss_mb: round3(g.rssMb),
    ...(g.windowCpu !== undefined ? { window_cpu: g.windowCpu } : {}),
    ...(poolWait !== undefined ? { pool_wait_ms: poolWait } : {}),
    ...(g.loopObservedMs !== undefined ? { timestamp_error_ms: timestampErrorOf(t.histograms, g.loopObservedMs, delivery) } : {}),
  };
}

const timeseriesSection = (s: RunTotals['series']): Result['timeseries'] => ({
  interval_s: s.intervalS,
  sent: s.sent,
  ok: s.ok,
  errors: s.errors,
  output_tokens: s.outputTokens,
});
