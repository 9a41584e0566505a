import type { LatencySummary } from '../metrics/histogram.js';
import type { Result } from './types.js';

/** A result's latency summary for a metric a sweep names ('ttft' → metrics.ttft_ms, 'e2e' → metrics.e2e_ms). */
export const latencyOf = (r: Result, metric: 'ttft' | 'e2e'): LatencySummary | null => r.metrics[`${metric}_ms`];
