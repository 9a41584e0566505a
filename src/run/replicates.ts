import { reseed } from './reseed.js';
import { MergeError, mergeResults } from '../result/merge.js';
import type { Result } from '../result/types.js';
import type { ResolvedSpec } from '../spec/types.js';
import { runBenchmark, type RunOptions } from './run.js';

/**
 * Replicate i of a spec: the same benchmark with a fresh seed, so the spread across replicates
 * covers both the server's run-to-run noise and the sampling of arrivals and lengths. The spec
 * hash stays the benchmark's, so the replicates merge as one.
 */
export function replicateSpec(r: ResolvedSpec, i: number): ResolvedSpec {
  return i === 0 ? r : reseed(r, `replicate ${i}`);
}

/**
 * Runs `replicates` independent windows one after another and merges them exactly (histograms
 * and counters add; the result carries each metric's coefficient of variation across them).
 * An interrupted replicate ends the series: what ran is merged and marked interrupted.
 */
export async function runReplicatesMerged(o: RunOptions, replicates: number, onReplicate?: (i: number) => void): Promise<Result> {
  // Refused before the first run: result/merge.ts cannot merge the conversations' per-turn figures.
  if (replicates > 1 && o.resolved.spec.workload.sessions)
    throw new MergeError(`${replicates} replicates with workload.sessions: their per-turn figures cannot be merged; expected 1 replicate`);
  const results: Result[] = [];
  for (let i = 0; i < replicates; i++) {
    if (i > 0 && o.signal?.aborted) break;
    onReplicate?.(i);
    results.push(await runBenchmark({ ...o, resolved: replicateSpec(o.resolved, i) }));
  }
  if (results.length === 1) return results[0];
  return mergeResults(results, { mode: 'replicates' });
}
