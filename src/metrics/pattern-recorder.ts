import { PHASE_METRICS, type PhaseMetric } from './definitions.js';
import { buildHistogram, newHistogram, recordMs, type Histogram } from './histogram.js';

/**
 * What a time-varying pattern needs beyond the window totals, kept with bounded memory:
 *
 * - per time bucket (by intended send time, over the whole run): requests scheduled, their
 *   outcomes, and a small TTFT histogram (2 significant digits: ~8 KB when used), from
 *   which TTFT p95 over any sliding window is the percentile of the merged buckets; and
 *   successful completions by end time (the achieved rate);
 * - per phase of the pattern (spike, step, ramp slice, soak segment): full-precision TTFT, TPOT
 *   and E2E histograms and counts, for per-phase summaries and the noise-aware drift test;
 * - per phase, the generator's own RSS and heap when the phase ended (a client leak shows there).
 *
 * The bucket count is fixed up front (the run's length is planned, at most MAX_BUCKETS of
 * them), so nothing grows with the number of requests or the length of the run.
 */
export interface PatternPhaseStats {
  fromMs: number;
  toMs: number;
  scheduled: number;
  ok: number;
  errors: number;
  /** Successful requests that ended inside the phase, whenever scheduled: what the server delivered. */
  completedOk: number;
  /** The metric table's `phases` (metrics/definitions.ts). */
  h: Record<PhaseMetric, Histogram>;
  memory: { rss_mb: number; heap_mb: number } | null;
}

export interface PatternBucket {
  scheduled: number;
  ok: number;
  errors: number;
  completedOk: number;
  ttft: Histogram | null;
}

/** The fields of a finished request the pattern reads (a RequestRecord has them all). */
export interface FinishedRequest {
  tSched: number;
  tSend: number;
  tFirst: number;
  tLast: number;
  tEnd: number;
  chunks: number;
  outcome: string | null;
  readonly outputTokens: number;
}

/** A small histogram for one time bucket: 1 % resolution is plenty to say "within 10 % of before". */
export function newBucketHistogram(): Histogram {
  return buildHistogram({
    numberOfSignificantValueDigits: 2,
    lowestDiscernibleValue: 1,
    autoResize: true,
    bitBucketSize: 32,
  });
}

export class PatternRecorder {
  readonly buckets: PatternBucket[];
  readonly phases: PatternPhaseStats[];

  constructor(
    private readonly runStart: number,
    readonly intervalMs: number,
    totalMs: number,
    phases: { fromMs: number; toMs: number }[],
  ) {
    this.buckets = Array.from({ length: Math.max(1, Math.ceil(totalMs / intervalMs)) }, () => ({
      scheduled: 0,
      ok: 0,
      errors: 0,
      completedOk: 0,
      ttft: null,
    }));
    this.phases = phases.map((p) => ({
      fromMs: p.fromMs,
      toMs: p.toMs,
      scheduled: 0,
      ok: 0,
      errors: 0,
      completedOk: 0,
      h: Object.fromEntries(PHASE_METRICS.map((m) => [m, newHistogram()])) as Record<PhaseMetric, Histogram>,
      memory: null,
    }));
  }

  /** Bucket of a run offset; the drain past the planned end lands in the last bucket. */
  private bucket(offsetMs: number): PatternBucket {
    const i = Math.min(this.buckets.length - 1, Math.max(0, Math.floor(offsetMs / this.intervalMs)));
    return this.buckets[i];
  }

  private phase(offsetMs: number): PatternPhaseStats | undefined {
    return this.phases.find((p) => offsetMs >= p.fromMs && offsetMs < p.toMs);
  }

  opened(offsetMs: number): void {
    this.bucket(offsetMs).scheduled++;
    const p = this.phase(offsetMs);
    if (p) p.scheduled++;
  }

  complete(r: FinishedRequest): void {
    const sched = r.tSched - this.runStart;
    const b = this.bucket(sched);
    const p = this.phase(sched);
    const ok = r.outcome === 'ok';
    if (ok) {
      b.ok++;
      const end = r.tEnd - this.runStart;
      this.bucket(end).completedOk++;
      const pe = this.phase(end);
      if (pe) pe.completedOk++;
    } else b.errors++;
    if (p) {
      if (ok) p.ok++;
      else p.errors++;
    }
    if (!ok || r.chunks === 0) return;
    // The same definitions as the window metrics (src/metrics/recorder.ts): from the intended send time.
    const ttft = r.tFirst - r.tSched;
    recordMs((b.ttft ??= newBucketHistogram()), ttft);
    if (!p) return;
    recordMs(p.h.ttft, ttft);
    recordMs(p.h.e2e, r.tLast - r.tSched);
    const n = r.outputTokens;
    if (n > 1) recordMs(p.h.tpot, (r.tLast - r.tFirst) / (n - 1));
  }

  /** The generator's memory when phase k ended (called from a timer at its end). */
  sampleMemory(k: number): void {
    const p = this.phases[k];
    if (p) p.memory = { rss_mb: process.memoryUsage.rss() / 2 ** 20, heap_mb: process.memoryUsage().heapUsed / 2 ** 20 };
  }
}

/** Nice bucket lengths, never under 50 ms; the longest keeps a 2-day run within MAX_BUCKETS. */
const NICE_MS = [50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000];
export const MAX_BUCKETS = 300;

/** The shortest nice bucket that covers the whole run in at most MAX_BUCKETS. */
export function bucketIntervalMs(totalMs: number): number {
  return NICE_MS.find((ms) => ms >= totalMs / MAX_BUCKETS) ?? NICE_MS[NICE_MS.length - 1];
}
