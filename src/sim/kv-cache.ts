import type { Sequence } from './sequence.js';

/**
 * KV-cache blocks with a prefix cache, after vLLM's block manager.
 *
 * A sequence holds private blocks plus references on shared prompt blocks keyed by their
 * chained hash. A shared block whose last reference goes away stays cached (still "free"
 * for usage, as in vLLM) in an LRU list and is evicted only when an allocation needs
 * the room, so the cache is bounded by the KV budget itself.
 *
 * Admission reserves every block the sequence will ever use (prompt + its output), so
 * there is no preemption: a simplification that keeps the waiting queue FIFO and the
 * capacity analysable, at the cost of admitting slightly fewer sequences than vLLM's
 * incremental allocation would when memory is the binding limit.
 */
export class KvCache {
  readonly totalBlocks: number;
  /** Blocks referenced by live sequences (a shared block counts once). */
  private used = 0;
  /** key → reference count; 0 means cached but unreferenced (then also in `lru`). */
  private readonly shared = new Map<number, number>();
  /** Unreferenced cached blocks, least recently released first. */
  private readonly lru = new Set<number>();
  /** Prompt tokens looked up / found in the prefix cache (vLLM's prefix_cache_queries / hits). */
  queriedTokens = 0;
  hitTokens = 0;

  constructor(
    kvTokens: number,
    readonly blockSize: number,
  ) {
    this.totalBlocks = Math.floor(kvTokens / blockSize);
  }

  usage(): number {
    return this.used / this.totalBlocks;
  }

  /**
   * Reserves memory for `seq` and sets its cached tokens, or returns false (nothing
   * changed) when it does not fit. The last prompt token is always recomputed, as in vLLM.
   */
  admit(seq: Sequence): boolean {
    const keys = seq.blockKeys;
    const maxHits = Math.min(keys.length, Math.floor((seq.promptTokens - 1) / this.blockSize));
    let hits = 0;
    let revived = 0;
    for (; hits < maxHits; hits++) {
      const refs = this.shared.get(keys[hits]);
      if (refs === undefined) break;
      if (refs === 0) revived++;
    }
    const fresh = Math.ceil((seq.promptTokens + seq.outputTokens) / this.blockSize) - hits;
    if (fresh > this.totalBlocks - this.used - revived) return false;

    for (let i = 0; i < hits; i++) this.ref(keys[i]);
    while (this.totalBlocks - this.used - this.lru.size < fresh) this.evictOne();
    this.used += fresh;
    seq.privateBlocks = fresh;
    seq.sharedBlocks = keys.slice(0, hits);
    seq.cachedTokens = hits * this.blockSize;
    this.queriedTokens += seq.promptTokens;
    this.hitTokens += seq.cachedTokens;
    return true;
  }

  /** After prefill, the prompt's full blocks become shareable (a duplicate of a cached block is dropped for it). */
  publish(seq: Sequence): void {
    this.share(seq, seq.blockKeys);
  }

  /** When the sequence ends, the full blocks of its reply become shareable too (as vLLM caches generated blocks). */
  publishReply(seq: Sequence): void {
    if (seq.replyKeys.length > 0) this.share(seq, seq.replyKeys);
  }

  /** The private blocks behind `keys`, past those the sequence already shares, become shared ones. */
  private share(seq: Sequence, keys: readonly number[]): void {
    const from = keys === seq.blockKeys ? seq.sharedBlocks.length : 0;
    for (let i = from; i < keys.length && seq.privateBlocks > 0; i++) {
      const key = keys[i];
      if (this.shared.has(key)) {
        this.used--; // our private copy goes; ref() re-counts the cached one if it was unreferenced
        this.ref(key);
      } else this.shared.set(key, 1);
      seq.privateBlocks--;
      seq.sharedBlocks.push(key);
    }
  }

  release(seq: Sequence): void {
    this.used -= seq.privateBlocks;
    seq.privateBlocks = 0;
    // Tail blocks first into the LRU, so a prompt's tail is evicted before its head.
    for (let i = seq.sharedBlocks.length - 1; i >= 0; i--) {
      const key = seq.sharedBlocks[i];
      const refs = this.shared.get(key)! - 1;
      this.shared.set(key, refs);
      if (refs === 0) {
        this.used--;
        this.lru.add(key);
      }
    }
    seq.sharedBlocks = [];
  }

  private ref(key: number): void {
    const refs = this.shared.get(key)!;
    if (refs === 0) {
      this.lru.delete(key);
      this.used++;
    }
    this.shared.set(key, refs + 1);
  }

  private evictOne(): void {
    const key = this.lru.values().next().value as number;
    this.lru.delete(key);
    this.shared.delete(key);
  }
}
