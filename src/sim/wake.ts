import { now } from '../time.js';

const cell = new Int32Array(new SharedArrayBuffer(4));
/** Timers fire up to ~1 ms early; anything earlier than this is re-armed rather than slept through. */
const MAX_SLEEP_MS = 1.5;

/**
 * Calls `fire(t)` once `now()` reaches the armed time — never before it. setTimeout alone
 * fires up to ~1 ms early or late (libuv's loop clock has whole milliseconds), so an early
 * wake-up sleeps the remaining fraction of a millisecond with Atomics.wait: precise to
 * ~0.1 ms at no CPU cost, where spinning on setImmediate would burn a core whenever due
 * times are dense — and the sim shares its machine with the load generator it serves.
 * The price is that I/O waits out such a sleep (at most MAX_SLEEP_MS).
 */
export class Wake {
  private due = Infinity;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;

  constructor(private readonly fire: (t: number) => void) {}

  get armedAt(): number {
    return this.due;
  }

  /** (Re)arms for absolute time `t`, replacing any earlier arming; Infinity disarms. */
  at(t: number): void {
    this.due = t;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = this.immediate = undefined;
    if (t === Infinity) return;
    const wait = t - now();
    // Below 1 ms setTimeout would round up to 1 ms; setImmediate lets pending I/O go first.
    if (wait >= 1) this.timer = setTimeout(this.onTime, wait);
    else this.immediate = setImmediate(this.onTime);
  }

  cancel(): void {
    this.at(Infinity);
  }

  private readonly onTime = () => {
    this.timer = this.immediate = undefined;
    let t = now();
    if (this.due - t > MAX_SLEEP_MS) return this.at(this.due);
    while (t < this.due) {
      Atomics.wait(cell, 0, 0, this.due - t);
      t = now();
    }
    this.due = Infinity;
    this.fire(t);
  };
}
