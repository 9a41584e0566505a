import { LATENCY_TARGETS, type LatencyKey, type LatencyTarget } from '../metrics/definitions.js';

const TARGETS = new Map(LATENCY_TARGETS.map((t) => [t.key, t]));
const RANK = new Map(LATENCY_TARGETS.map((t, i) => [t.key, i]));

/** What a `<metric>_<percentile>` gate key points at in a result (the metric table, src/metrics/definitions.ts). */
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
