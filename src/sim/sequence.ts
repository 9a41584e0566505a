/** How a scheduler reports progress to the response that owns a sequence. */
export interface SequenceSink {
  admitted(t: number): void;
  /** One output token produced at real time `t`; `last` ends the sequence. Returns when it was written (its ground truth). */
  token(t: number, last: boolean): number;
}

/** One request as a scheduler sees it. The scheduler owns and mutates the state fields. */
export class Sequence {
  state: 'new' | 'waiting' | 'running' | 'done' = 'new';
  produced = 0;
  cachedTokens = 0;

  // engine state
  /** Prompt tokens still to prefill (cached tokens never are). */
  prefillLeft = 0;
  /** Tokens this sequence has in the current step: prefill chunk size, or 1 when decoding; 0 = not in it. */
  scheduled = 0;
  privateBlocks = 0;
  /** Prefix-cache block keys this sequence holds a reference on, in prompt order. */
  sharedBlocks: number[] = [];

  // paced state: real time its next token is due
  due = 0;

  constructor(
    /** When the request arrived (absolute ms): the engine never admits it into a step that began earlier. */
    readonly received: number,
    readonly promptTokens: number,
    /** Chained keys of the prompt's full blocks (empty when prefix caching is off). */
    readonly blockKeys: readonly number[],
    readonly outputTokens: number,
    readonly sink: SequenceSink,
    /** Chained keys of the further full blocks of prompt + reply, shareable once the reply is done (context-cache.ts). */
    readonly replyKeys: readonly number[] = [],
  ) {}
}

export interface Scheduler {
  submit(seq: Sequence): void;
  /** The client went away or the response was cut: free the sequence's slot and memory. */
  cancel(seq: Sequence): void;
  readonly running: number;
  readonly waiting: number;
  /** Fraction of KV-cache blocks in use (0 outside engine mode). */
  kvUsage(): number;
  stop(): void;
}
