import { SEGMENT_METRICS, type SegmentMetric } from './definitions.js';
import { newHistogram, recordMs, type Histogram } from './histogram.js';

/**
 * The steady window cut into equal slices by intended send time, with TTFT, TPOT, ITL and E2E
 * histograms per slice: the raw material of the gate's within-run drift estimate (batch means,
 * src/gate/noise.ts). Eight slices: enough points for a spread (7 degrees of freedom), few
 * enough that each still holds a usable percentile in a short window.
 */
export const SEGMENT_COUNT = 8;

export class SegmentHistograms {
  /** Per slice, a histogram of each metric the table slices (metrics/definitions.ts `segments`). */
  readonly h: Record<SegmentMetric, Histogram>[] = Array.from(
    { length: SEGMENT_COUNT },
    () => Object.fromEntries(SEGMENT_METRICS.map((m) => [m, newHistogram()])) as Record<SegmentMetric, Histogram>,
  );

  constructor(
    readonly fromMs: number,
    readonly toMs: number,
  ) {}

  /** The slice of an intended send offset (ms after run start); -1 outside the window. */
  indexOf(offsetMs: number): number {
    if (offsetMs < this.fromMs || offsetMs >= this.toMs || this.toMs <= this.fromMs) return -1;
    return Math.min(SEGMENT_COUNT - 1, Math.floor(((offsetMs - this.fromMs) / (this.toMs - this.fromMs)) * SEGMENT_COUNT));
  }

  record(segment: number, metric: SegmentMetric, ms: number): void {
    if (segment >= 0) recordMs(this.h[segment][metric], ms);
  }
}
