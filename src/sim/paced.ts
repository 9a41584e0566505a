import { now } from '../time.js';
import type { SimConfig } from './config.js';
import { MinHeap } from './heap.js';
import type { Scheduler, Sequence } from './sequence.js';
import type { Stalls } from './stalls.js';
import type { Drift } from './drift.js';
import { Wake } from './wake.js';

/**
 * No compute model: each admitted request gets its first token `ttft_ms` after admission
 * and then one every `itl_ms`, independently of the others. With `slots` set, at most that
 * many run and the rest wait FIFO. Due times are absolute and chained from the previous
 * due time (not from when the timer fired), so jitter never accumulates; one timer serves
 * every sequence, and each wake-up emits all tokens that are due.
 */
export class Paced implements Scheduler {
  private readonly due = new MinHeap<Sequence>((s) => s.due);
  private readonly queue: Sequence[] = [];
  private queueHead = 0;
  private waitingCount = 0;
  private active = 0;
  private readonly wake = new Wake((t) => this.onWake(t));

  constructor(
    private readonly config: SimConfig,
    private readonly stalls: Stalls,
    private readonly drift?: Drift,
  ) {}

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.waitingCount;
  }

  kvUsage(): number {
    return 0;
  }

  submit(seq: Sequence): void {
    if (this.config.slots === undefined || this.active < this.config.slots) this.start(seq, now());
    else {
      seq.state = 'waiting';
      this.queue.push(seq);
      this.waitingCount++;
    }
    this.rearm();
  }

  cancel(seq: Sequence): void {
    if (seq.state === 'waiting') this.waitingCount--;
    else if (seq.state === 'running') this.free(now()); // its heap entry is dropped when it surfaces
    seq.state = 'done';
    this.rearm();
  }

  stop(): void {
    this.wake.cancel();
  }

  private start(seq: Sequence, t: number): void {
    seq.state = 'running';
    this.active++;
    seq.sink.admitted(t);
    seq.due = this.stalls.advance(t, this.config.ttft_ms * (this.drift?.factor(t) ?? 1));
    this.due.push(seq);
  }

  private free(t: number): void {
    this.active--;
    while (this.waitingCount > 0) {
      const next = this.queue[this.queueHead++];
      if (next.state === 'done') continue;
      this.waitingCount--;
      this.start(next, t);
      break;
    }
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
  }

  private onWake(t: number): void {
    for (let seq = this.due.peek(); seq && seq.due <= t; seq = this.due.peek()) {
      this.due.pop();
      if (seq.state !== 'running') continue;
      const last = ++seq.produced === seq.outputTokens;
      if (last) seq.state = 'done';
      else {
        seq.due = this.stalls.advance(seq.due, this.config.itl_ms * (this.drift?.factor(seq.due) ?? 1));
        this.due.push(seq);
      }
      const written = seq.sink.token(t, last);
      // The slot passes on when the last token has gone out.
      if (last) this.free(written);
    }
    this.rearm();
  }

  /** Keeps the one timer pointed at the earliest due token. */
  private rearm(): void {
    const next = this.due.peek()?.due ?? Infinity;
    if (next !== this.wake.armedAt) this.wake.at(next);
  }
}
