import type { ResolvedAbort } from '../spec/types.js';

export interface AbortDecision {
  reason: 'error_rate' | 'over_saturation';
  /** ms since the start of the run. */
  atMs: number;
  detail: string;
}

/** Sub-intervals a sliding window is counted in: its counts move in steps of window / SLOTS. */
const SLOTS = 20;
/** The error rate is judged once this many requests have ended inside the window: one early error is not a rate. */
export const MIN_ERROR_SAMPLES = 10;
/** Over-saturation needs at least this many more requests in flight than a window ago. */
export const MIN_BACKLOG_GROWTH = 16;

/**
 * Decides when a run stops early (load.abort), from what the dispatcher and the recorder see.
 *
 * Error rate: over the last `window` (by end time), failed / ended ≥ max_error_rate, once at
 * least MIN_ERROR_SAMPLES requests ended in it. A server that starts failing every request at T
 * after serving all is caught when failures are half the window, at about T + window/2
 * (for max_error_rate 0.5) — always within one window.
 *
 * Over-saturation (the condition GuideLLM's detector looks for — concurrency growing while
 * responses fall behind — stated as a rule on counts): over the last window,
 *   1. in flight rose in every quarter of the window (a steady climb, not one burst),
 *   2. by at least max(MIN_BACKLOG_GROWTH, a quarter of the window's arrivals), and
 *   3. fewer than half the window's arrivals' worth of requests completed.
 * A server keeping up has flat in-flight (Little's law: L = λW); one that stalls piles up
 * every arrival. A spike past capacity also meets the rule while it lasts, so it is opt-in.
 */
export class AbortWatch {
  private readonly slotMs: number;
  private readonly ended = new Float64Array(SLOTS);
  private readonly failed = new Float64Array(SLOTS);
  private readonly arrived = new Float64Array(SLOTS);
  private readonly inFlightAt = new Float64Array(SLOTS + 1).fill(NaN);
  private slot = -1;

  constructor(private readonly a: ResolvedAbort) {
    this.slotMs = a.windowMs / SLOTS;
  }

  /** Moves the ring to the slot of t (ms since the run started), clearing the slots passed over. */
  private advance(tMs: number, inFlight: number): number {
    const s = Math.floor(tMs / this.slotMs);
    for (let k = Math.max(this.slot + 1, s - SLOTS); k <= s; k++) {
      const i = ((k % SLOTS) + SLOTS) % SLOTS;
      this.ended[i] = this.failed[i] = this.arrived[i] = 0;
      // in flight at the start of slot k, kept for the window's SLOTS + 1 boundaries
      this.inFlightAt.copyWithin(0, 1);
      this.inFlightAt[SLOTS] = inFlight;
    }
    this.slot = Math.max(this.slot, s);
    return ((s % SLOTS) + SLOTS) % SLOTS;
  }

  arrival(tMs: number, inFlight: number): void {
    this.arrived[this.advance(tMs, inFlight)]++;
  }

  end(tMs: number, ok: boolean, inFlight: number): void {
    const i = this.advance(tMs, inFlight);
    this.ended[i]++;
    if (!ok) this.failed[i]++;
  }

  /** Called on a timer and after each end: the decision, or null to go on. */
  check(tMs: number, inFlight: number): AbortDecision | null {
    this.advance(tMs, inFlight);
    const sum = (a: Float64Array) => a.reduce((x, y) => x + y, 0);
    const ended = sum(this.ended);
    const failed = sum(this.failed);
    const windowS = this.a.windowMs / 1000;
    if (this.a.maxErrorRate !== null && ended >= MIN_ERROR_SAMPLES && failed / ended >= this.a.maxErrorRate) {
      return {
        reason: 'error_rate',
        atMs: tMs,
        detail: `${failed} of ${ended} requests that ended in the last ${windowS} s failed (${Math.round((failed / ended) * 1000) / 10} %), at or above load.abort.max_error_rate ${this.a.maxErrorRate}`,
      };
    }
    if (!this.a.overSaturation) return null;
    const q = [0, 1, 2, 3, 4].map((k) => this.inFlightAt[(k * SLOTS) / 4]);
    q[4] = inFlight;
    if (q.some((v) => Number.isNaN(v))) return null; // less than one window seen
    const arrivals = sum(this.arrived);
    const climbing = q.every((v, k) => k === 0 || v > q[k - 1]);
    const growth = q[4] - q[0];
    if (climbing && growth >= Math.max(MIN_BACKLOG_GROWTH, arrivals / 4) && ended < arrivals / 2) {
      return {
        reason: 'over_saturation',
        atMs: tMs,
        detail: `in flight climbed ${q[0]} → ${q[4]} over the last ${windowS} s while ${ended} of ${arrivals} arrivals' worth of requests completed: the server is not keeping up`,
      };
    }
    return null;
  }
}
