import { appendAll } from '../numbers.js';

/** A run longer than this many intervals halves its resolution, so results stay the same size however long the run. */
const MAX_POINTS = 900;

/**
 * Counters per interval over the whole run (all phases), indexed by intervals since the run
 * started. The interval starts at 1 s and doubles whenever the run outgrows MAX_POINTS.
 */
export class TimeSeries {
  intervalS = 1;
  readonly sent: number[] = [];
  readonly ok: number[] = [];
  readonly errors: number[] = [];
  readonly outputTokens: number[] = [];

  constructor(private readonly runStart: number) {}

  private bucket(arr: number[], t: number): number {
    let i = Math.max(0, Math.floor((t - this.runStart) / (1000 * this.intervalS)));
    while (i >= MAX_POINTS) {
      this.coarsen();
      i = i >> 1;
    }
    while (arr.length <= i) arr.push(0);
    return i;
  }

  private coarsen(): void {
    for (const arr of [this.sent, this.ok, this.errors, this.outputTokens]) {
      const halved = coarsenCounts(arr, 2);
      arr.length = 0;
      appendAll(arr, halved);
    }
    this.intervalS *= 2;
  }

  recordSent(t: number): void {
    this.sent[this.bucket(this.sent, t)]++;
  }

  recordFinished(t: number, ok: boolean, outputTokens: number): void {
    if (ok) {
      this.ok[this.bucket(this.ok, t)]++;
      this.outputTokens[this.bucket(this.outputTokens, t)] += outputTokens;
    } else {
      this.errors[this.bucket(this.errors, t)]++;
    }
  }
}

/** Sums each run of `factor` consecutive counts: the same series at a `factor` times coarser interval. */
export function coarsenCounts(counts: readonly number[], factor: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < counts.length; i++) out[Math.floor(i / factor)] = (out[Math.floor(i / factor)] ?? 0) + counts[i];
  return out;
}
