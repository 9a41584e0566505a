/**
 * Samples needed to judge percentile p: at least `minTail` of them above it, n ≥ minTail / (1 − p).
 * With the default 10: p50 20, p90 100, p95 200, p99 1,000, p99.9 10,000. Below that the tail
 * is a handful of requests and neither the estimate nor its bootstrap interval can be trusted.
 */
export function minSamples(p: number, minTail: number): number {
  return Math.ceil(minTail / (1 - p / 100) - 1e-9);
}
