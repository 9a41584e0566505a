import { createRng, deriveSeed, type Rng } from '../arrivals/rng.js';
import { LATENCY_TARGETS, type LatencyKey, type LatencyTarget } from '../metrics/definitions.js';
import { decodeHistogram } from '../metrics/histogram.js';
import type { Result } from '../result/types.js';
import { bucketsOf, type Buckets } from './buckets.js';
import type { RuleFlags } from './rules-schema.js';
import { normalQuantile } from './stats.js';
import type { RuleOutcome, RuleStatus } from './types.js';

const TARGETS = new Map(LATENCY_TARGETS.map((t) => [t.key, t]));
const RANK = new Map(LATENCY_TARGETS.map((t, i) => [t.key, i]));

/** What a `<metric>_<percentile>` gate key points at in a result (src/metrics/definitions.ts). */
export function latencyTarget(key: LatencyKey): LatencyTarget {
  const t = TARGETS.get(key);
  if (!t) throw new Error(`${key} is not a latency rule key`);
  return t;
}

/** Keys in reading order (metric, then percentile), whatever order the spec wrote them in. */
export function sortedLatencyKeys(keys: string[]): LatencyKey[] {
  const rank = (k: LatencyKey) => RANK.get(latencyTarget(k).key)!;
  return (keys as LatencyKey[]).sort((a, b) => rank(a) - rank(b));
}

/**
 * Samples needed to judge percentile p: at least `minTail` of them above it, n ≥ minTail / (1 − p).
 * With the default 10: p50 20, p90 100, p95 200, p99 1,000, p99.9 10,000. Below that the tail
 * is a handful of requests and neither the estimate nor its bootstrap interval can be trusted.
 */
export function minSamples(p: number, minTail: number): number {
  return Math.ceil(minTail / (1 - p / 100) - 1e-9);
}

/** Everything a rule needs besides its own settings: noise-test parameters and decoded histograms. */
export interface JudgeContext {
  confidence: number;
  /** Φ⁻¹(confidence): one-sided normal quantile. */
  z: number;
  iterations: number;
  minTail: number;
  /** A seeded generator for one rule: each rule draws its own stream, so rule order never changes a verdict. */
  rng(ruleId: string): Rng;
  /** Non-empty buckets of a result's histogram (ms for latencies, unit 1 for token counts), or null when it has no samples. */
  buckets(r: Result, histogram: string, unit: number): Buckets | null;
}

export function judgeContext(o: { confidence: number; iterations: number; minTail: number; seed: number }): JudgeContext {
  const cache = new WeakMap<Result, Map<string, Buckets | null>>();
  return {
    confidence: o.confidence,
    z: normalQuantile(o.confidence),
    iterations: o.iterations,
    minTail: o.minTail,
    rng: (id) => createRng(deriveSeed(o.seed, id)),
    buckets(r, histogram, unit) {
      const perResult = cache.get(r) ?? new Map<string, Buckets | null>();
      cache.set(r, perResult);
      const key = `${histogram}/${unit}`;
      if (!perResult.has(key)) {
        const encoded = r.histograms[histogram];
        const b = encoded === undefined ? null : bucketsOf(decodeHistogram(encoded), unit);
        perResult.set(key, b && b.n > 0 ? b : null);
      }
      return perResult.get(key)!;
    },
  };
}

/**
 * Between-run standard error of a metric in a merged result, from its replicate spread:
 * cv · value / √replicates. Zero for a single run (its noise is all in the histograms).
 */
export function replicateSe(r: Result, key: string, value: number): number {
  const spread = r.replicates;
  const cv = spread?.cv[key];
  return spread && cv !== undefined ? (cv * Math.abs(value)) / Math.sqrt(spread.count) : 0;
}

type Draft = Omit<RuleOutcome, 'rule' | 'status' | 'warn_only'>;

/** Completes an outcome: a violated warn_only rule reports `warn`, which the verdict ignores. */
export function outcome(d: Draft, status: Exclude<RuleStatus, 'warn'>, flags: RuleFlags): RuleOutcome {
  return {
    ...d,
    rule: `${d.metric} ${d.limit}`,
    status: status === 'fail' && flags.warn_only ? 'warn' : status,
    warn_only: flags.warn_only,
  };
}

export const changeOf = (baseline: number, current: number) => ({
  abs: current - baseline,
  rel: baseline !== 0 ? (current - baseline) / baseline : null,
});

/** Numbers in reasons: 3 significant figures, a real minus sign, a sign when asked. */
export function num(v: number, signed = false): string {
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  const text = Math.abs(v).toFixed(digits);
  return `${v < 0 && Number(text) !== 0 ? '−' : signed ? '+' : ''}${text}`;
}
export const pctText = (fraction: number, signed = false) => `${num(fraction * 100, signed)} %`;
export const confText = (confidence: number) => `${Math.round(confidence * 1000) / 10} %`;
