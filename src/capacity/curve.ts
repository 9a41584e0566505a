import type { Result } from '../result/types.js';
import { latencyOf } from '../result/latency.js';
import type { AnalysisOptions, SweepPoint } from './types.js';

/** The latency summary the analysis uses (TTFT or E2E). */
export function latency(r: Result, metric: AnalysisOptions['metric']) {
  return latencyOf(r, metric);
}

/** The histogram behind that summary (src/metrics/definitions.ts). */
export const histogramOf = (metric: AnalysisOptions['metric']): string => (metric === 'ttft' ? 'ttft' : 'e2e');

/** The load's x value of a point: its nominal rate (open loop) or its concurrency (closed loop). */
export const loadOf = (p: SweepPoint): number => (p.mode === 'open' ? p.rate_per_s! : p.concurrency!);

/** A sweep's mode: open loop unless every point is closed loop. */
export function sweepMode(points: SweepPoint[]): 'open' | 'closed' {
  return points.length > 0 && points.every((p) => p.mode === 'closed') ? 'closed' : 'open';
}

/** The curve's points, lightest first; the closed-loop points of an open-loop sweep (probe, throughput) measure S and X_max only. */
export function curve(points: SweepPoint[], mode: 'open' | 'closed'): { point: SweepPoint; index: number }[] {
  return points
    .map((point, index) => ({ point, index }))
    .filter((p) => p.point.mode === mode)
    .sort((a, b) => loadOf(a.point) - loadOf(b.point));
}
