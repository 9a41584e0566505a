import { coarsenCounts } from '../metrics/timeseries.js';
import { OUTCOMES, type Outcome } from '../client/types.js';
import {
  decodeHistogram,
  delayTail,
  encodeHistogram,
  newHistogram,
  PERCENTILES,
  summarizeCounts,
  summarizeMs,
  type Histogram,
} from '../metrics/histogram.js';
import { specHash } from '../spec/hash.js';
import { TOOL_VERSION } from '../version.js';
import { RESULT_SCHEMA_VERSION, type MetricName, type Result, type ValidityCheck } from './types.js';
import { deliveredLengths, generatorLimits, validityChecks } from './validity.js';
import { errorRates } from './build.js';
import type { WindowCpu } from '../metrics/window-cpu.js';

/**
 * replicates: the same benchmark run several times one after another. Windows add up;
 *   rates are totals over the total window time (a window-weighted mean).
 * shards: parallel generators, each at rate/N, over the same wall-clock window. The window
 *   is shared; rates and counts add.
 */
export type MergeMode = 'replicates' | 'shards';

export interface MergeInfo {
  mode: MergeMode;
  /** Number of original runs inside (a merged input counts as the runs it holds). */
  merged_from: number;
  /** Merged with --force although the inputs' spec hashes or models differ. */
  forced: boolean;
}

/** Run-to-run spread of replicates: coefficient of variation (sd / mean) of key metrics across the inputs. */
export interface ReplicateSpread {
  count: number;
  /** Keys like "ttft_ms.p95", "throughput.output_tokens_per_s". */
  cv: Record<string, number>;
}

/** A result, possibly merged. These optional fields belong in Result (src/result/types.ts). */
export type MergedResult = Result & { merge?: MergeInfo; replicates?: ReplicateSpread };

export interface MergeOptions {
  mode?: MergeMode;
  /** Merge even when spec hashes or models differ (the result is then marked invalid). */
  force?: boolean;
  /** How messages name the inputs (file names); defaults to "result 1", "result 2", … */
  names?: string[];
}

export class MergeError extends Error {}

/** Which recorder histogram (src/metrics/recorder.ts) each latency summary is computed from. */
export const METRIC_HISTOGRAM: Record<MetricName, string> = {
  ttft_ms: 'ttft',
  ttft_from_send_ms: 'ttftFromSend',
  time_to_first_answer_ms: 'timeToFirstAnswer',
  tpot_ms: 'tpot',
  itl_ms: 'itl',
  e2e_ms: 'e2e',
  normalized_latency_ms: 'normalized',
  schedule_lag_ms: 'scheduleLag',
};

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const MAX_ERROR_SAMPLES = 20;

/**
 * Combines results exactly: histograms and counters add, and every summary is recomputed
 * from the merged histograms (percentiles are never averaged). Pure: no clock, no I/O.
 */
export function mergeResults(results: Result[], opts: MergeOptions = {}): MergedResult {
  const first = results[0];
  if (!first) throw new MergeError('nothing to merge: give at least one result');
  const mode = opts.mode ?? 'replicates';
  const names = opts.names ?? results.map((_, i) => `result ${i + 1}`);
  const mismatches = mergeMismatches(results, names);
  if (mismatches.length > 0 && !opts.force) throw new MergeError(`cannot merge ${mismatches[0]}; pass --force to merge anyway`);

  const shards = mode === 'shards';
  const sum = (f: (r: Result) => number) => results.reduce((acc, r) => acc + f(r), 0);
  const max = (f: (r: Result) => number) => Math.max(...results.map(f));
  const totalWindow = sum((r) => r.load.window_s);
  /** A per-second quantity of the merged run: shards add; replicates are totals over the total window. */
  const rate = (f: (r: Result) => number) => r3(shards ? sum(f) : totalWindow > 0 ? sum((r) => f(r) * r.load.window_s) / totalWindow : 0);
  const classes = (f: (r: Result) => Record<Outcome, number>) =>
    Object.fromEntries(OUTCOMES.map((o) => [o, sum((r) => f(r)[o] ?? 0)])) as Record<Outcome, number>;

  const h = mergeHistograms(results);
  const summary = (name: string, unit: 'ms' | 'count') =>
    h[name] ? (unit === 'ms' ? summarizeMs(h[name]) : summarizeCounts(h[name])) : null;
  const windowByClass = classes((r) => r.requests.window.by_class);
  const ws = sum((r) => r.requests.window.scheduled);
  const good = sum((r) => r.goodput.requests);
  const offered = rate((r) => r.load.offered_rate_per_s);
  const achieved = rate((r) => r.load.achieved_rate_per_s);
  const meanInFlight = rate((r) => r.littles_law.mean_in_flight);
  const predicted = rate((r) => r.littles_law.predicted_in_flight);
  const littlesRatio = predicted > 0 ? r3(meanInFlight / predicted) : null;
  const metrics = Object.fromEntries(Object.entries(METRIC_HISTOGRAM).map(([m, name]) => [m, summary(name, 'ms')])) as Result['metrics'];
  // Measured only by newer loadgates: judged when every input has it.
  const windowCpu = results.every((r) => r.generator.window_cpu !== undefined)
    ? busiest(results.map((r) => r.generator.window_cpu!))
    : undefined;
  const poolWait = results.every((r) => r.histograms.poolWait !== undefined) ? delayTail(summary('poolWait', 'ms')) : undefined;
  const loopDelay = {
    p50: max((r) => r.generator.event_loop_delay_ms.p50),
    p99: max((r) => r.generator.event_loop_delay_ms.p99),
    max: max((r) => r.generator.event_loop_delay_ms.max),
  };
  const spec = shards ? shardedSpec(results) : first.spec;
  const interrupted = results.some((r) => r.load.interrupted);
  const label = `${first.load.mode === 'closed' ? `closed-loop, ${shards ? sum((r) => r.load.concurrency ?? 0) : first.load.concurrency} concurrent` : `open-loop ${first.load.arrival} at ${offered} req/s`} (${results.length} ${mode} merged)`;

  const workload: Result['workload'] = {
    input_tokens: {
      requested: summary('requestedPromptTokens', 'count'),
      delivered: summary('promptTokens', 'count'),
      ...(first.workload.input_tokens.spec ? { spec: first.workload.input_tokens.spec } : {}),
    },
    output_tokens: {
      requested: summary('requestedOutputTokens', 'count'),
      delivered: summary('outputTokens', 'count'),
      ...(first.workload.output_tokens.spec ? { spec: first.workload.output_tokens.spec } : {}),
      ...(results.every((r) => r.workload.output_tokens.shortfall) ? { shortfall: mergeShortfall(results) } : {}),
    },
    token_source: mergeTokenSource(results.map((r) => r.workload.token_source)),
    usage_missing: sum((r) => r.workload.usage_missing),
    usage_chunk_mismatch: sum((r) => r.workload.usage_chunk_mismatch),
    ...(first.workload.plan ? { plan: first.workload.plan } : {}),
  };
  // A shard's own sample count or Little's law says little about the whole; the merged checks judge those.
  const judgedAlone = (c: ValidityCheck) => !(shards && (c.name === 'samples' || c.name === 'littles_law'));
  const invalidInputs = results.flatMap((r, i) =>
    r.validity.checks.filter((c) => !c.ok && judgedAlone(c)).map((c) => `${names[i]} failed ${c.name}`),
  );
  const checks = [
    ...validityChecks(
      {
        mode: first.load.mode,
        offeredRate: offered,
        achievedRate: achieved,
        scheduleLagP99Ms: metrics.schedule_lag_ms?.p99 ?? null,
        eventLoopDelayP99Ms: loopDelay.p99,
        busyCpu: windowCpu === null ? null : windowCpu?.busy,
        poolWaitP99Ms: poolWait === null ? null : poolWait?.p99,
        okSamples: windowByClass.ok,
        littlesRatio,
        interrupted,
        workload: deliveredLengths(spec, workload),
      },
      generatorLimits(spec),
    ),
    {
      name: 'merge_inputs',
      ok: invalidInputs.length === 0 && mismatches.length === 0,
      message:
        mismatches.length > 0
          ? `merged with --force across different benchmarks: ${mismatches[0]}`
          : invalidInputs.length > 0
            ? `an input was not valid: ${invalidInputs.slice(0, 3).join('; ')}`
            : `all ${results.length} inputs were valid runs of the same spec`,
    },
  ];

  const merged: MergedResult = {
    schema_version: RESULT_SCHEMA_VERSION,
    tool: { name: 'loadgate', version: TOOL_VERSION },
    created_at: results.map((r) => r.created_at).reduce((a, b) => (a > b ? a : b)),
    // Request ids of the inputs keep their own prefixes; a merge names them all.
    run_id: results.map((r) => r.run_id).join('+'),
    spec,
    spec_hash: shards ? specHash(spec) : first.spec_hash,
    target: first.target,
    environment: { ...first.environment, workers: shards ? sum((r) => r.environment.workers) : first.environment.workers },
    load: {
      ...first.load,
      label,
      concurrency: shards && first.load.concurrency !== null ? sum((r) => r.load.concurrency ?? 0) : first.load.concurrency,
      offered_rate_per_s: offered,
      achieved_rate_per_s: achieved,
      window_s: r3(shards ? max((r) => r.load.window_s) : totalWindow),
      interrupted,
    },
    requests: {
      scheduled: sum((r) => r.requests.scheduled),
      by_class: classes((r) => r.requests.by_class),
      not_reached: sum((r) => r.requests.not_reached),
      window: { scheduled: ws, by_class: windowByClass },
      error_samples: mergeErrorSamples(results),
    },
    metrics,
    throughput: {
      output_tokens_per_s: rate((r) => r.throughput.output_tokens_per_s),
      total_tokens_per_s: rate((r) => r.throughput.total_tokens_per_s),
      requests_per_s: rate((r) => r.throughput.requests_per_s),
    },
    goodput: {
      slo: first.goodput.slo,
      requests: good,
      rate_per_s: rate((r) => r.goodput.rate_per_s),
      fraction: ws > 0 ? r3(good / ws) : null,
    },
    rates: errorRates(windowByClass, ws),
    workload,
    generator: {
      event_loop_delay_ms: loopDelay,
      cpu_s: r3(sum((r) => r.generator.cpu_s)),
      cpu_utilization: max((r) => r.generator.cpu_utilization),
      // Shards are separate threads or machines, so their memory adds; replicates ran one after another.
      heap_mb: r3(shards ? sum((r) => r.generator.heap_mb) : max((r) => r.generator.heap_mb)),
      rss_mb: r3(shards ? sum((r) => r.generator.rss_mb) : max((r) => r.generator.rss_mb)),
      ...(windowCpu !== undefined ? { window_cpu: windowCpu } : {}),
      ...(poolWait !== undefined ? { pool_wait_ms: poolWait } : {}),
    },
    littles_law: { mean_in_flight: meanInFlight, predicted_in_flight: predicted, ratio: littlesRatio },
    validity: { valid: checks.every((c) => c.ok), checks },
    timeseries: mergeTimeseries(results, shards),
    histograms: Object.fromEntries(Object.entries(h).map(([k, v]) => [k, encodeHistogram(v)])),
    definitions: first.definitions,
    merge: { mode, merged_from: sum((r) => (r as MergedResult).merge?.merged_from ?? 1), forced: mismatches.length > 0 },
  };
  if (!shards && results.length > 1) merged.replicates = { count: results.length, cv: spread(results) };
  return merged;
}

/** Why two inputs are not runs of the same benchmark, one line each. */
function mergeMismatches(results: Result[], names: string[]): string[] {
  const [first] = results;
  const out: string[] = [];
  results.slice(1).forEach((r, j) => {
    const name = names[j + 1];
    if (r.target.model !== first.target.model)
      out.push(`${name}: its model ${JSON.stringify(r.target.model)} differs from ${names[0]}'s ${JSON.stringify(first.target.model)}`);
    else if (r.spec_hash !== first.spec_hash)
      out.push(
        `${name}: its spec hash ${r.spec_hash.slice(0, 12)} differs from ${names[0]}'s ${first.spec_hash.slice(0, 12)} (a different benchmark)`,
      );
  });
  return out;
}

function mergeHistograms(results: Result[]): Record<string, Histogram> {
  const out: Record<string, Histogram> = {};
  for (const r of results) {
    for (const [name, encoded] of Object.entries(r.histograms)) (out[name] ??= newHistogram()).add(decodeHistogram(encoded));
  }
  return out;
}

/** The spec of the whole sharded run: each shard ran at rate/N (or concurrency/N), the whole at their sum. */
function shardedSpec(results: Result[]): Result['spec'] {
  const spec = structuredClone(results[0].spec);
  if (spec.load.mode === 'open') spec.load.rate = Math.round(results.reduce((a, r) => a + r.spec.load.rate, 0) * 1e6) / 1e6;
  else spec.load.concurrency = results.reduce((a, r) => a + r.spec.load.concurrency, 0);
  return spec;
}

function mergeErrorSamples(results: Result[]): Result['requests']['error_samples'] {
  const byKey = new Map<string, Result['requests']['error_samples'][number]>();
  for (const e of results.flatMap((r) => r.requests.error_samples)) {
    const key = `${e.class}\u0000${e.detail}`;
    const seen = byKey.get(key);
    if (seen) seen.count += e.count;
    else byKey.set(key, { ...e });
  }
  return [...byKey.values()].sort((a, b) => b.count - a.count).slice(0, MAX_ERROR_SAMPLES);
}

/** The busiest generator thread (or run) is the one that could have been the bottleneck. */
function busiest(cpus: (WindowCpu | null)[]): WindowCpu | null {
  const measured = cpus.filter((c): c is WindowCpu => c !== null);
  return measured.length === 0 ? null : measured.reduce((a, b) => (b.busy > a.busy ? b : a));
}

function mergeTokenSource(sources: Result['workload']['token_source'][]): Result['workload']['token_source'] {
  const measured = new Set(sources.filter((s) => s !== 'none'));
  if (measured.size === 0) return 'none';
  return measured.size === 1 ? [...measured][0] : 'mixed';
}

/**
 * Shards share a clock, so their per-second counts add. Replicates ran one after another,
 * so second i of each is averaged (over the replicates that lasted that long): the merged
 * series shows a typical run at its real scale.
 */
function mergeTimeseries(results: Result[], shards: boolean): Result['timeseries'] {
  // Inputs of different lengths may have coarsened differently: bring all to the coarsest interval.
  const interval = Math.max(...results.map((r) => r.timeseries.interval_s));
  const combine = (pick: (r: Result) => number[]) => {
    const series = results.map((r) => coarsenCounts(pick(r), interval / r.timeseries.interval_s));
    const length = Math.max(0, ...series.map((a) => a.length));
    return Array.from({ length }, (_, i) => {
      const values = series.filter((a) => i < a.length).map((a) => a[i]);
      const total = values.reduce((a, b) => a + b, 0);
      return shards ? total : r3(total / values.length);
    });
  };
  return {
    interval_s: interval,
    sent: combine((r) => r.timeseries.sent),
    ok: combine((r) => r.timeseries.ok),
    errors: combine((r) => r.timeseries.errors),
    output_tokens: combine((r) => r.timeseries.output_tokens),
  };
}

/** The metrics the gate judges, as "<summary>.<field>" keys with their value in a result. */
const SPREAD_KEYS: Record<string, (r: Result) => number | null> = {
  ...Object.fromEntries(
    (Object.keys(METRIC_HISTOGRAM) as MetricName[]).flatMap((m) =>
      PERCENTILES.map(([key]) => [`${m}.${key}`, (r: Result) => r.metrics[m]?.[key] ?? null]),
    ),
  ),
  'throughput.output_tokens_per_s': (r) => r.throughput.output_tokens_per_s,
  'throughput.requests_per_s': (r) => r.throughput.requests_per_s,
  'goodput.rate_per_s': (r) => r.goodput.rate_per_s,
};

/** Sample CV (n − 1) of each key across the inputs; keys missing in any input or with mean 0 are left out. */
function spread(results: Result[]): Record<string, number> {
  const cv: Record<string, number> = {};
  for (const [key, get] of Object.entries(SPREAD_KEYS)) {
    const xs = results.map(get);
    if (xs.some((x) => x === null)) continue;
    const values = xs as number[];
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    if (mean <= 0) continue;
    const variance = values.reduce((a, x) => a + (x - mean) ** 2, 0) / (values.length - 1);
    cv[key] = Math.round((Math.sqrt(variance) / mean) * 1e4) / 1e4;
  }
  return cv;
}

/** Requests that came back short, and their mean shortfall weighted by how many each input had. */
function mergeShortfall(results: Result[]): { requests: number; mean_tokens: number | null } {
  let requests = 0;
  let tokens = 0;
  for (const r of results) {
    const s = r.workload.output_tokens.shortfall!;
    requests += s.requests;
    tokens += s.requests * (s.mean_tokens ?? 0);
  }
  return { requests, mean_tokens: requests > 0 ? r3(tokens / requests) : null };
}
