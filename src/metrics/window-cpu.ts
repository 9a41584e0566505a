import { Described, Type, type Static } from '../json-schema.js';
import { now } from '../time.js';
import { threadCpuMs } from './thread-cpu.js';
import { round3 } from '../numbers.js';

export const WindowCpuSchema = Type.Object({
  busy: Described("Share of one core the thread spent working: its CPU time less the dispatcher's idle spin.", Type.Number()),
  spin: Described('Share of one core the dispatcher spent spinning through idle event-loop turns just before arrivals.', Type.Number()),
});
export type WindowCpu = Static<typeof WindowCpuSchema>;

interface Snapshot {
  t: number;
  cpuMs: number;
  spinMs: number;
}

/**
 * The generator thread's CPU over the measured window. Its whole CPU time would mislead: the
 * open-loop dispatcher spins through idle event-loop turns before each arrival, so a thread
 * with work to spare reads busy at high arrival rates. The dispatcher times those turns; their
 * time is taken off.
 */
export class WindowCpuMeter {
  private from: Snapshot | null = null;
  private to: Snapshot | null = null;

  constructor(
    /** The dispatcher's spin so far (src/dispatch/open-loop.ts); closed loop does not spin. */
    private readonly spinMs: () => number,
  ) {}

  /** At the window's start. */
  start(): void {
    this.from = this.take();
  }

  /** At the window's end, or wherever the run stopped inside it; later calls keep the first. */
  stop(): void {
    if (this.from !== null && this.to === null) this.to = this.take();
  }

  /** Null when the window was never reached or this platform has no per-thread CPU. */
  read(): WindowCpu | null {
    const { from, to } = this;
    if (from === null || to === null || Number.isNaN(from.cpuMs) || Number.isNaN(to.cpuMs) || to.t <= from.t) return null;
    const wall = to.t - from.t;
    const spinMs = to.spinMs - from.spinMs;
    // Clamped: a spin timed a little longer than the CPU the thread was charged must not read as negative busy.
    const share = (ms: number) => round3(Math.max(0, ms / wall));
    return { busy: share(to.cpuMs - from.cpuMs - spinMs), spin: share(spinMs) };
  }

  private take(): Snapshot {
    return { t: now(), cpuMs: threadCpuMs() ?? NaN, spinMs: this.spinMs() };
  }
}
