import { scalePatternRates } from '../spec/pattern.js';
import { reseed } from './reseed.js';
import type { ResolvedSpec } from '../spec/types.js';

/**
 * Shard k of n: the spec a generator runs to take an independent 1/n share of the load — the
 * arrival rate divided by n (or the concurrency split), and its own seed, so the shards'
 * arrival processes are independent (the superposition of n independent Poisson processes of
 * rate λ/n is Poisson of rate λ). The spec hash stays the whole run's, so the shards' results
 * merge as one benchmark (`loadgate merge --mode shards`).
 */
export function shardSpec(r: ResolvedSpec, k: number, n: number): ResolvedSpec {
  if (n === 1) return r;
  if (r.spec.workload.trace)
    throw new Error(`--shard ${k + 1}/${n} splits a rate, but workload.trace replays one schedule; expected no --shard with a trace`);
  const shard = reseed(r, `shard ${k} of ${n}`, (spec) => {
    if (spec.load.mode === 'open') {
      spec.load.rate = spec.load.rate / n;
      // A rate curve splits like a rate: each shard runs λ(t)/n (a ramp's and steps' own rates too).
      if (spec.load.pattern) spec.load.pattern = scalePatternRates(spec.load.pattern, 1 / n);
    } else spec.load.concurrency = Math.floor(spec.load.concurrency / n) + (k < spec.load.concurrency % n ? 1 : 0);
  });
  return r.pattern ? { ...shard, pattern: scalePatternRates(r.pattern, 1 / n) } : shard;
}

/** `--shard 2/4` → shard index 1 (0-based) of 4. */
export function parseShard(text: string): { k: number; n: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const i = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!(n >= 1 && i >= 1 && i <= n)) throw new Error(`--shard is "${text}"; expected K/N with 1 ≤ K ≤ N, e.g. 2/4`);
  return { k: i - 1, n };
}
