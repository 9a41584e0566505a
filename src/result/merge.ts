import { coarsenCounts } from '../metrics/timeseries.js';
import { OUTCOMES, type Outcome } from '../client/types.js';
import { METRICS } from '../metrics/definitions.js';
import { decodeHistogram, emptyLike, PERCENTILES, type Histogram } from '../metrics/histogram.js';
import { MAX_ERROR_SAMPLES } from '../metrics/recorder.js';
import { scalePatternRates } from '../spec/pattern.js';
import { baseRateOf, mergePatternSections } from './pattern.js';
import type { WindowCpu } from '../metrics/window-cpu.js';
import { maxOf, round3 } from '../numbers.js';
import { specHash } from '../spec/hash.js';
import { assembleResult } from './assemble.js';
import { observedLoopMs } from './timestamp-error.js';
import { mergeConnectionFacts } from './connections.js';
import { mergeServerView } from './server-view.js';
import { mergeSegments } from './segments.js';
import { resultCounts, type RunCounts, type RunTotals } from './totals.js';
import type { MergeMode, Result, ValidityCheck } from './types.js';

export interface MergeOptions {
  mode?: MergeMode;
  /** Merge even when spec hashes or models differ (the result is then marked invalid). */
  force?: boolean;
  /** How messages name the inputs (file names); defaults to "result 1", "result 2", … */
  names?: string[];
}

export class MergeError extends Error {}

/**
 * Refuses one run given twice (a copy of a result, or a merged result beside one of its
 * parts): merged, its requests would count twice, and a calibration over copies would find a
 * spread of 0 that makes every later gate over-confident. A merge's run id joins its inputs'
 * with `+`, so each part is checked.
 */
export function checkDistinctRuns(results: readonly Result[], names: readonly string[]): void {
  const seen = new Map<string, number>();
  results.forEach((r, i) => {
    for (const id of r.run_id.split('+')) {
      const first = seen.get(id);
      if (first !== undefined && first !== i)
        throw new MergeError(
          `${names[i]}: holds run ${id}, as ${names[first]} does; expected each run once (a copy merged twice would count its requests twice)`,
        );
      seen.set(id, i);
    }
  });
}

/**
 * Combines results exactly: histograms and counters add, and every summary is recomputed
 * from the merged histograms (percentiles are never averaged). Pure: no clock, no I/O.
 */
export function mergeResults(results: Result[], opts: MergeOptions = {}): Result {
  return assembleResult(mergeTotals(results, opts));
}

/**
 * The totals of several results combined (see MergeMode): counters and histograms add, the
 * window is shared (shards) or added (replicates), and the generator's figures are those of
 * the busiest input (or, for shards' memory, their sum). assemble.ts derives the rest.
 */
export function mergeTotals(results: Result[], opts: MergeOptions = {}): RunTotals {
  const first = results[0];
  if (!first) throw new MergeError('nothing to merge: give at least one result');
  const mode = opts.mode ?? 'replicates';
  const names = opts.names ?? results.map((_, i) => `result ${i + 1}`);
  const conversations = results.filter((r) => r.workload.plan?.sessions).length;
  if (results.length > 1 && conversations > 0)
    throw new MergeError(
      `cannot merge ${conversations} of ${results.length} results that ran workload.sessions: their per-turn figures are kept per run; expected one result per conversation run`,
    );
  const mismatches = mergeMismatches(results, names);
  if (mismatches.length > 0 && !opts.force) throw new MergeError(`cannot merge ${mismatches[0]}; pass --force to merge anyway`);

  const shards = mode === 'shards';
  const sum = sumOf(results);
  const max = maxOver(results);
  const spec = shards ? shardedSpec(results) : first.spec;
  const { input_tokens: input, output_tokens: output, plan } = first.workload;

  return {
    // Request ids of the inputs keep their own prefixes; a merge names them all.
    runId: results.map((r) => r.run_id).join('+'),
    createdAt: results.map((r) => r.created_at).reduce((a, b) => (a > b ? a : b)),
    spec,
    specHash: shards ? shardedHash(first, spec) : first.spec_hash,
    target: first.target,
    environment: { ...first.environment, workers: shards ? sum((r) => r.environment.workers) : first.environment.workers },
    warmupS: first.load.warmup_s,
    cooldownS: first.load.cooldown_s,
    windowS: shards ? max((r) => r.load.window_s) : sum((r) => r.load.window_s),
    interrupted: results.some((r) => r.load.interrupted),
    notReached: sum((r) => r.requests.not_reached),
    counts: addCounts(results.map(resultCounts)),
    ...mergedPeak(results, shards),
    errorSamples: mergeErrorSamples(results),
    connections: mergeConnectionFacts(results),
    serverView: mergeServerView(results, mode),
    histograms: mergeHistograms(results),
    segments: mergeSegments(
      results.map((r) => r.segments),
      mode,
    ),
    series: mergeTimeseries(results, shards),
    generator: mergedGenerator(results, shards),
    workload: {
      ...(input.spec ? { inputSpec: input.spec } : {}),
      ...(output.spec ? { outputSpec: output.spec } : {}),
      ...(plan ? { plan } : {}),
      shortfall: results.every((r) => r.workload.output_tokens.shortfall),
    },
    definitions: first.definitions,
    parts: { how: mode, count: results.length },
    merge: { mode, merged_from: sum((r) => r.merge?.merged_from ?? 1), forced: mismatches.length > 0 },
    ...(!shards && results.length > 1 ? { replicates: { count: results.length, cv: spread(results) } } : {}),
    ...mergedPattern(results, shards, spec),
    extraChecks: [mergeInputsCheck(results, names, mismatches, shards)],
  };
}

/** Adders over the inputs. */
const sumOf = (results: Result[]) => (f: (r: Result) => number) => results.reduce((acc, r) => acc + f(r), 0);
const maxOver = (results: Result[]) => (f: (r: Result) => number) => maxOf(results.map(f));

/** The generator's figures: those of the busiest input, or for shards' memory and everyone's CPU time, their sum. */
function mergedGenerator(results: Result[], shards: boolean): RunTotals['generator'] {
  const sum = sumOf(results);
  const max = maxOver(results);
  // Measured only by newer loadgates: judged when every input has it.
  const windowCpu = results.every((r) => r.generator.window_cpu !== undefined)
    ? busiest(results.map((r) => r.generator.window_cpu!))
    : undefined;
  return {
    eventLoopDelayMs: {
      p50: max((r) => r.generator.event_loop_delay_ms.p50),
      p99: max((r) => r.generator.event_loop_delay_ms.p99),
      max: max((r) => r.generator.event_loop_delay_ms.max),
    },
    cpuS: sum((r) => r.generator.cpu_s),
    cpuUtilization: max((r) => r.generator.cpu_utilization),
    // Shards are separate threads or machines, so their memory adds; replicates ran one after another.
    heapMb: shards ? sum((r) => r.generator.heap_mb) : max((r) => r.generator.heap_mb),
    rssMb: shards ? sum((r) => r.generator.rss_mb) : max((r) => r.generator.rss_mb),
    windowCpu,
    poolWaitMeasured: results.every((r) => r.histograms.poolWait !== undefined),
    loopObservedMs: observedLoopMs(results),
  };
}

/** Whether the inputs were valid runs of one benchmark: each input's own checks, and any forced mismatch. */
function mergeInputsCheck(results: Result[], names: string[], mismatches: string[], shards: boolean): ValidityCheck {
  // A shard's own sample count or Little's law says little about the whole; the merged checks judge those.
  const judgedAlone = (c: ValidityCheck) => !(shards && (c.name === 'samples' || c.name === 'littles_law'));
  const invalidInputs = results.flatMap((r, i) =>
    r.validity.checks.filter((c) => !c.ok && judgedAlone(c)).map((c) => `${names[i]} failed ${c.name}`),
  );
  return {
    name: 'merge_inputs',
    ok: invalidInputs.length === 0 && mismatches.length === 0,
    message:
      mismatches.length > 0
        ? `merged with --force across different benchmarks: ${mismatches[0]}`
        : invalidInputs.length > 0
          ? `an input was not valid: ${invalidInputs.slice(0, 3).join('; ')}`
          : `all ${results.length} inputs were valid runs of the same spec`,
  };
}

/**
 * The pattern sections added up and judged again (result/pattern.ts), and the earliest abort:
 * a thread's or shard's abort stopped its part of the run, so the run is aborted.
 */
function mergedPattern(results: Result[], shards: boolean, spec: Result['spec']): Pick<RunTotals, 'pattern' | 'abort'> {
  const pattern = mergePatternSections(
    results.map((r) => r.pattern),
    shards,
    spec.gate,
    baseRateOf(spec.load),
  );
  const aborts = results.flatMap((r) => (r.abort ? [r.abort] : []));
  return {
    ...(pattern ? { pattern } : {}),
    ...(aborts.length > 0 ? { abort: aborts.reduce((a, b) => (b.at_s < a.at_s ? b : a)) } : {}),
  };
}

/** Counters add; outcome classes add class by class (an older input may lack a newer class). */
function addCounts(all: RunCounts[]): RunCounts {
  const total = (f: (c: RunCounts) => number) => all.reduce((a, c) => a + f(c), 0);
  const classes = (f: (c: RunCounts) => Record<Outcome, number>) =>
    Object.fromEntries(OUTCOMES.map((o) => [o, total((c) => f(c)[o] ?? 0)])) as Record<Outcome, number>;
  const sums: Record<string, number> = Object.fromEntries(
    Object.entries(all[0])
      .filter(([, v]) => typeof v === 'number')
      .map(([k]) => [k, total((c) => c[k as keyof RunCounts] as number)]),
  );
  return { ...all[0], ...sums, byClass: classes((c) => c.byClass), windowByClass: classes((c) => c.windowByClass) };
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
    for (const [name, encoded] of Object.entries(r.histograms)) {
      const h = decodeHistogram(encoded);
      (out[name] ??= emptyLike(h)).add(h);
    }
  }
  return out;
}

/**
 * The whole benchmark's hash for merged shards. A run started with `--shard K/N` already carries
 * it: its spec holds the shard's own rate and seed, but it keeps the hash of the spec it was cut
 * from, so its hash differs from its own spec's. Results that carry their own spec's hash (runs
 * at a lower rate, merged as shards of a run that was never written) get the merged spec's.
 */
function shardedHash(first: Result, merged: Result['spec']): string {
  return first.spec_hash !== specHash(first.spec) ? first.spec_hash : specHash(merged);
}

/** The spec of the whole sharded run: each shard ran at rate/N (or concurrency/N), the whole at their sum. */
function shardedSpec(results: Result[]): Result['spec'] {
  const spec = structuredClone(results[0].spec);
  if (spec.load.mode === 'open') {
    spec.load.rate = Math.round(results.reduce((a, r) => a + r.spec.load.rate, 0) * 1e6) / 1e6;
    if (spec.load.pattern) spec.load.pattern = scalePatternRates(spec.load.pattern, results.length);
  } else spec.load.concurrency = results.reduce((a, r) => a + r.spec.load.concurrency, 0);
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

/**
 * Shards share a clock, so their per-second counts add. Replicates ran one after another,
 * so second i of each is averaged (over the replicates that lasted that long): the merged
 * series shows a typical run at its real scale.
 */
function mergeTimeseries(results: Result[], shards: boolean): RunTotals['series'] {
  // Inputs of different lengths may have coarsened differently: bring all to the coarsest interval.
  const interval = maxOf(results.map((r) => r.timeseries.interval_s));
  const combine = (pick: (r: Result) => number[]) => {
    const series = results.map((r) => coarsenCounts(pick(r), interval / r.timeseries.interval_s));
    const length = maxOf(
      series.map((a) => a.length),
      0,
    );
    return Array.from({ length }, (_, i) => {
      const values = series.filter((a) => i < a.length).map((a) => a[i]);
      const total = values.reduce((a, b) => a + b, 0);
      return shards ? total : round3(total / values.length);
    });
  };
  return {
    intervalS: interval,
    sent: combine((r) => r.timeseries.sent),
    ok: combine((r) => r.timeseries.ok),
    errors: combine((r) => r.timeseries.errors),
    outputTokens: combine((r) => r.timeseries.output_tokens),
  };
}

/** The metrics the gate judges, as "<summary>.<field>" keys with their value in a result. */
const SPREAD_KEYS: Record<string, (r: Result) => number | null> = {
  ...Object.fromEntries(
    METRICS.flatMap(({ key: m }) => PERCENTILES.map(([key]) => [`${m}.${key}`, (r: Result) => r.metrics[m]?.[key] ?? null])),
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

/** The in-flight peak of merged runs (see RunTotals.peakInFlight). */
function mergedPeak(results: Result[], shards: boolean): { peakInFlight?: number } {
  if (!results.every((r) => r.littles_law.peak_in_flight !== undefined)) return {};
  const peaks = results.map((r) => r.littles_law.peak_in_flight!);
  return { peakInFlight: shards ? peaks.reduce((a, b) => a + b, 0) : maxOf(peaks) };
}
