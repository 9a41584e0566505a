import type { StallConfig } from './config.js';

interface Window {
  start: number;
  end: number;
}

/**
 * Windows of real time during which the whole engine is frozen: no step runs, no token
 * flows. Schedulers express work as "w ms of compute starting at t" and ask `advance`
 * when it completes, so a stall delays everything in flight by exactly its overlap.
 */
export class Stalls {
  private readonly fixed: Window[] = [];
  private readonly periodic: { every: number; duration: number } | undefined;

  constructor(
    config: StallConfig | undefined,
    /** Absolute time the schedule counts from (server start). */
    private readonly origin: number,
  ) {
    if (!config) return;
    for (const at of config.at_ms ?? []) this.add(origin + at, config.duration_ms);
    if (config.every_ms !== undefined) this.periodic = { every: config.every_ms, duration: config.duration_ms };
  }

  /** Adds a stall (an `x-sim-fault: stall` request starts one now). */
  add(start: number, duration: number): void {
    this.fixed.push({ start, end: start + duration });
    this.fixed.sort((a, b) => a.start - b.start);
  }

  /** The real time at which `work` ms of engine time starting at real time `t` is done. */
  advance(t: number, work: number): number {
    let cur = t;
    let left = work;
    for (let w = this.next(cur); w && w.start < cur + left; w = this.next(cur)) {
      if (w.start > cur) left -= w.start - cur;
      cur = w.end;
    }
    return cur + left;
  }

  /** The earliest-starting window that ends after `t`. */
  private next(t: number): Window | undefined {
    while (this.fixed.length && this.fixed[0].end <= t - 60_000) this.fixed.shift(); // long past: never asked about again
    let best = this.fixed.find((w) => w.end > t);
    if (this.periodic) {
      const { every, duration } = this.periodic;
      const k = Math.max(1, Math.floor((t - this.origin - duration) / every) + 1);
      const start = this.origin + k * every;
      if (!best || start < best.start) best = { start, end: start + duration };
    }
    return best;
  }
}
