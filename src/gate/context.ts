import { createRng, deriveSeed, type Rng } from '../rng.js';
import { decodeHistogram } from '../metrics/histogram.js';
import type { Result } from '../result/types.js';
import { bucketsOf, type Buckets } from '../metrics/buckets.js';
import { NO_EXTRA_NOISE, type NoiseModel } from './noise.js';
import { normalQuantile } from '../metrics/stats.js';

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
  /** Drift and between-run spread beyond the bootstrap (noise.ts). */
  noise: NoiseModel;
}

export function judgeContext(o: {
  confidence: number;
  iterations: number;
  minTail: number;
  seed: number;
  noise?: NoiseModel;
}): JudgeContext {
  const cache = new WeakMap<Result, Map<string, Buckets | null>>();
  return {
    confidence: o.confidence,
    z: normalQuantile(o.confidence),
    iterations: o.iterations,
    minTail: o.minTail,
    noise: o.noise ?? NO_EXTRA_NOISE,
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
