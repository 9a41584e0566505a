import { resolveSpec } from '../spec/resolve.js';
import type { ResolvedSpec } from '../spec/types.js';

/**
 * The single-point spec of one sweep point: the sweep's spec with its load set to this point
 * (open loop at `rate`, or closed loop at `concurrency`) and without the sweep and sizing
 * sections, re-resolved by the same rules as a spec file, so every point is an ordinary run
 * whose result could stand alone (and whose hash is that of the plain spec).
 */
export function pointSpec(r: ResolvedSpec, load: { mode: 'open'; rate: number } | { mode: 'closed'; concurrency: number }): ResolvedSpec {
  const spec = structuredClone(r.spec);
  delete spec.sweep;
  delete spec.sizing;
  spec.load.mode = load.mode;
  if (load.mode === 'open') spec.load.rate = load.rate;
  else spec.load.concurrency = load.concurrency;
  const resolved = resolveSpec(spec);
  return { ...resolved, headers: r.headers, specDir: r.specDir, ...(r.apiKey === undefined ? {} : { apiKey: r.apiKey }) };
}
