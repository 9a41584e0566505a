import { newHistogram, recordMs, toMicros, type Histogram } from './histogram.js';
import { now } from '../time.js';
import type { ReadTurnSink } from '../client/client.js';

/** Read turns as the client reports them (src/client/client.ts observeReadTurns). */
export type ReadTurnSource = (sink: ReadTurnSink) => () => void;

/**
 * What the generator's event loop did while the window's chunks arrived, for the timestamp
 * error bound (src/result/timestamp-error.ts): the length of every read turn, counted once per
 * turn and once per read in it, how late work due at known moments ran, and the time observed —
 * from the window's start until its last request has ended. GC pauses need no meter of their
 * own: one delays the turn it falls in, or the lateness of what was due during it.
 *
 * Turns are told to every meter of the thread, so concurrent runs in one thread each see the
 * whole loop, which is what delays their reads.
 *
 * Before the window the meter tallies just the same, and empties its histograms when the window
 * opens: the warmup rehearses the code the window runs on every read turn, as the recorder's
 * rehearsal does for every request (src/metrics/recorder.ts), so none of it is first optimized,
 * or dropped and compiled again, while the window's first chunks arrive.
 */
export class LoopTurnMeter {
  /** Turn lengths (µs), one count per turn: with `observedMs`, where a uniformly arriving byte lands. */
  readonly turns: Histogram = newHistogram();
  /**
   * How long each turn's reads took (µs), from its first read to its last, one count per socket
   * read in the turn: the span a read's place among them lies in. Their handling comes after
   * them all (src/client/direct-reads.ts), so it delays the next turn's reads, not these.
   */
  readonly readTurns: Histogram = newHistogram();
  /**
   * How late work due at a known moment ran (µs): each arrival's schedule lag in open loop (the
   * dispatcher spins through the last 1–2 ms before it, so its lateness is what anything due then
   * waited, the OS not running this thread included; behind a stall, the arrivals due in it wait
   * out its rest, as bytes arriving then do) and the 10 ms loop probe's (whole milliseconds of
   * timer grain, but 100 samples a second at any rate).
   */
  readonly late: Histogram = newHistogram();
  private from = NaN;
  private to = NaN;
  private readonly unsubscribe: () => void;

  constructor(source: ReadTurnSource) {
    this.unsubscribe = source((startAt, endAt, reads, lastReadAt) => {
      if (!Number.isNaN(this.to)) return;
      recordMs(this.turns, endAt - startAt);
      this.readTurns.recordValueWithCount(toMicros(lastReadAt - startAt), reads);
    });
  }

  /** Lateness of something due at a known moment (before the window, rehearsed and dropped). */
  lateness(ms: number): void {
    if (Number.isNaN(this.to)) recordMs(this.late, ms);
  }

  /** At the window's start: what the warmup tallied is dropped. */
  start(): void {
    if (!Number.isNaN(this.from) || !Number.isNaN(this.to)) return;
    this.from = now();
    this.emptyHistograms();
  }

  /**
   * Once the window's last request has ended (after the drain), or wherever the run stopped: the
   * window's last chunks arrive after the window closes. Later calls keep the first.
   */
  stop(): void {
    if (!Number.isNaN(this.to)) return;
    this.to = now();
    // Stopped before the window opened: the warmup's turns are no window's.
    if (Number.isNaN(this.from)) this.emptyHistograms();
  }

  private emptyHistograms(): void {
    this.turns.reset();
    this.readTurns.reset();
    this.late.reset();
  }

  /** Loop time the turns were taken from, ms (0 when the window was never reached). */
  get observedMs(): number {
    return Number.isNaN(this.from) ? 0 : (Number.isNaN(this.to) ? now() : this.to) - this.from;
  }

  /** Stops listening for turns (the run is over). */
  close(): void {
    this.stop();
    this.unsubscribe();
  }
}
