import { now } from '../time.js';
import type { SimConfig } from './config.js';
import { KvCache } from './kv-cache.js';
import type { Scheduler, Sequence } from './sequence.js';
import type { Stalls } from './stalls.js';
import type { Drift } from './drift.js';
import { Wake } from './wake.js';
import { Jitter } from './jitter.js';

/**
 * A continuous-batching engine in the style of vLLM V1, one iteration ("step") at a time.
 *
 * Each step is formed at its start:
 *   1. running sequences first, in order: a decoding one takes 1 token of the step's
 *      budget (`max_num_batched_tokens`), one still prefilling takes the next chunk of its
 *      prompt (chunked prefill) up to what the budget has left;
 *   2. then waiting sequences, FIFO, while fewer than `max_num_seqs` run, budget is left
 *      and the KV cache can reserve their blocks (prefix-cache hits skip prefill).
 * Its duration is
 *   slowdown × (decode_base_ms + decode_ms_per_seq × decoding + prefill_ms_per_token × prefill tokens),
 * so a long prompt's chunk stretches the step and with it every neighbour's inter-token
 * latency, as on a real GPU. At the step's end every decoding sequence, and every one
 * whose prefill completed, emits one token — all written in one timer callback.
 * Steps run back to back from their ideal end times, so timer jitter does not drift the
 * simulated clock; stalls freeze the clock (see Stalls).
 *
 * Saturation rate. With prompts of I uncached tokens (I ≤ max_num_batched_tokens) and
 * outputs of O tokens, a request holds one of N = max_num_seqs slots for O steps (one that
 * ends its prefill and yields token 1, then O − 1 decode steps). At saturation all N slots
 * are busy, so steps/s S = X·O/N for a completion rate X, and one second of engine time is
 *   S·base + per_seq·X·(O − 1) + prefill·X·I = 1   (each × slowdown)
 * which gives
 *   X_max = 1 / (slowdown · (O·base/N + per_seq·(O − 1) + prefill·I)).
 * With O·base/N + per_seq·O = O·step(N)/N this is the usual decode-bound
 * N / (O · step(N)) with the prefill time added. When memory binds first, N is
 * floor(kv blocks / ceil((I + O) / block_size)) instead. See `saturationRate`.
 */
export class Engine implements Scheduler {
  private readonly kv: KvCache;
  private readonly waitingQueue: Sequence[] = [];
  private waitingHead = 0;
  private waitingCount = 0;
  private runningSeqs: Sequence[] = [];
  private readonly wake = new Wake((t) => this.onWake(t));
  private readonly jitter: Jitter | null;
  /** Each admitted sequence's prefill cost factor (jitter.request_cv). */
  private readonly prefillFactor = new WeakMap<Sequence, number>();
  /** Ideal (simulated) end of the step in flight, or NaN when none is. */
  private stepEnd = NaN;
  steps = 0;
  /** Modelled compute time of all steps, ms (stalls excluded). */
  busyMs = 0;

  constructor(
    private readonly config: SimConfig,
    private readonly stalls: Stalls,
    private readonly drift?: Drift,
  ) {
    this.kv = new KvCache(config.kv_cache_tokens, config.block_size);
    this.jitter = config.jitter ? new Jitter(config.jitter, config.seed) : null;
  }

  get running(): number {
    return this.runningSeqs.length;
  }

  get waiting(): number {
    return this.waitingCount;
  }

  kvUsage(): number {
    return this.kv.usage();
  }

  prefixCache(): { queries: number; hits: number } {
    return { queries: this.kv.queriedTokens, hits: this.kv.hitTokens };
  }

  submit(seq: Sequence): void {
    seq.state = 'waiting';
    this.waitingQueue.push(seq);
    this.waitingCount++;
    // An idle engine picks the request up at once (after any stall), a busy one at its next step.
    if (Number.isNaN(this.stepEnd) && this.wake.armedAt === Infinity) this.wake.at(this.stalls.advance(now(), 0));
  }

  cancel(seq: Sequence): void {
    if (seq.state === 'waiting')
      this.waitingCount--; // skipped when it reaches the head
    else if (seq.state === 'running') {
      this.kv.release(seq);
      this.runningSeqs = this.runningSeqs.filter((s) => s !== seq); // a step in progress keeps iterating its own array
    }
    seq.state = 'done';
  }

  stop(): void {
    this.wake.cancel();
  }

  private onWake(t: number): void {
    let start = t;
    if (!Number.isNaN(this.stepEnd)) {
      start = this.stepEnd; // back to back from the ideal end, so timer jitter never accumulates
      this.finishStep(t);
    }
    if (this.runningSeqs.length === 0) {
      if (this.waitingCount === 0) return;
      start = t; // the engine sat idle: whatever waits arrived since, and starts now
    }
    start = this.stalls.advance(start, 0);
    if (start > t) this.wake.at(start);
    else this.startStep(start);
  }

  private startStep(start: number): void {
    const c = this.config;
    let budget = c.max_num_batched_tokens;
    let decoding = 0;
    let prefill = 0;
    for (const seq of this.runningSeqs) {
      if (budget === 0) break;
      const n = seq.prefillLeft > 0 ? Math.min(seq.prefillLeft, budget) : 1;
      seq.scheduled = n;
      budget -= n;
      if (seq.prefillLeft > 0) prefill += n * (this.prefillFactor.get(seq) ?? 1);
      else decoding++;
    }
    while (budget > 0 && this.runningSeqs.length < c.max_num_seqs && this.waitingCount > 0) {
      const seq = this.waitingQueue[this.waitingHead];
      if (seq.state === 'done') {
        this.dequeue();
        continue;
      }
      // Causality when the sim runs behind its clock: a step that began before the request arrived cannot take it.
      if (seq.received > start) break;
      if (!this.kv.admit(seq)) break; // FIFO: the head waits for memory, nobody overtakes it
      this.dequeue();
      this.waitingCount--;
      seq.state = 'running';
      seq.prefillLeft = seq.promptTokens - seq.cachedTokens;
      seq.scheduled = Math.min(seq.prefillLeft, budget);
      budget -= seq.scheduled;
      if (this.jitter) this.prefillFactor.set(seq, this.jitter.request());
      prefill += seq.scheduled * (this.prefillFactor.get(seq) ?? 1);
      this.runningSeqs.push(seq);
      seq.sink.admitted(start);
    }
    if (this.runningSeqs.length === 0) {
      this.stepEnd = NaN;
      return;
    }
    const ms =
      c.slowdown *
      (this.drift?.factor(start) ?? 1) *
      (this.jitter?.step() ?? 1) *
      (c.decode_base_ms + c.decode_ms_per_seq * decoding + c.prefill_ms_per_token * prefill);
    this.steps++;
    this.busyMs += ms;
    this.stepEnd = this.stalls.advance(start, ms);
    this.wake.at(this.stepEnd);
  }

  private finishStep(t: number): void {
    this.stepEnd = NaN;
    let finished = false;
    for (const seq of this.runningSeqs) {
      const n = seq.scheduled;
      seq.scheduled = 0;
      if (n === 0 || seq.state !== 'running') continue;
      if (seq.prefillLeft > 0) {
        seq.prefillLeft -= n;
        if (seq.prefillLeft > 0) continue; // more chunks to go
        this.kv.publish(seq);
      }
      const last = ++seq.produced === seq.outputTokens;
      if (last) {
        seq.state = 'done';
        this.kv.publishReply(seq);
        this.kv.release(seq);
        finished = true;
      }
      seq.sink.token(t, last); // may cancel() sequences (a reset fault): they are skipped by state
    }
    if (finished) this.runningSeqs = this.runningSeqs.filter((s) => s.state === 'running');
  }

  private dequeue(): void {
    this.waitingHead++;
    if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waitingQueue.length) {
      this.waitingQueue.splice(0, this.waitingHead);
      this.waitingHead = 0;
    }
  }
}

/**
 * Requests/s at which the engine saturates for fixed prompt and output lengths with no
 * prefix-cache hits (derivation in the Engine doc comment). Assumes a prompt fits one
 * step's token budget.
 */
export function saturationRate(c: SimConfig, promptTokens: number, outputTokens: number): number {
  const perSeqBlocks = Math.ceil((promptTokens + outputTokens) / c.block_size);
  const slots = Math.min(c.max_num_seqs, Math.floor(Math.floor(c.kv_cache_tokens / c.block_size) / perSeqBlocks));
  const msPerRequest =
    c.slowdown *
    ((outputTokens * c.decode_base_ms) / slots + c.decode_ms_per_seq * (outputTokens - 1) + c.prefill_ms_per_token * promptTokens);
  return 1000 / msPerRequest;
}
