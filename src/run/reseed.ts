import { deriveSeed } from '../rng.js';
import type { ResolvedSpec, Spec } from '../spec/types.js';

/**
 * A variant of the benchmark with its own seed (and any load edit), keeping the benchmark's
 * spec hash: shards and replicates are parts of one benchmark and merge as one.
 */
export function reseed(r: ResolvedSpec, purpose: string, edit: (spec: Spec) => void = () => {}): ResolvedSpec {
  const spec = structuredClone(r.spec);
  spec.workload.seed = deriveSeed(spec.workload.seed, purpose);
  edit(spec);
  return { ...r, spec };
}
