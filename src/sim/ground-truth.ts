import type { Api } from './request.js';

/** How a request ended, from the server's side; /metrics counts requests by these classes. */
export const OUTCOME_CLASSES = [
  'ok',
  'http_429',
  'http_4xx',
  'http_5xx',
  'stream_error',
  'truncated',
  'malformed',
  'reset',
  'client_abort',
] as const;
export type OutcomeClass = (typeof OUTCOME_CLASSES)[number];

/**
 * The server's own account of one request. Times are absolute milliseconds from
 * `now()` (src/time.ts: sub-millisecond, comparable with a client's clock on the same
 * machine); null when the moment never came.
 */
export interface GroundTruth {
  id: string;
  api: Api;
  stream: boolean;
  /** Request headers parsed. */
  received: number;
  /** Taken into a batch (engine) or a slot (paced). */
  admitted: number | null;
  /** First and last output token written to the socket. */
  first_token: number | null;
  last_token: number | null;
  /** Every output token's write time, in order; only with `record_token_times`. */
  token_times?: number[];
  /** Response finished or cut. */
  ended: number | null;
  prompt_tokens: number;
  cached_tokens: number;
  /** Output tokens sent. */
  output_tokens: number;
  status: number;
  outcome: OutcomeClass | null;
  /** The fault the request drew, if any. */
  fault: string | null;
}

/** The `sim_timing` object of a final usage chunk or non-streaming response. */
export function simTiming(r: GroundTruth) {
  return {
    request_id: r.id,
    received: r.received,
    admitted: r.admitted,
    first_token: r.first_token,
    last_token: r.last_token,
    prompt_tokens: r.prompt_tokens,
    cached_tokens: r.cached_tokens,
    output_tokens: r.output_tokens,
  };
}

/** The last `size` requests, oldest first: memory stays bounded however long the sim runs. */
export class GroundTruthLog {
  private ring: GroundTruth[] = [];
  private next = 0;

  constructor(private readonly size: number) {}

  add(record: GroundTruth): void {
    if (this.ring.length < this.size) this.ring.push(record);
    else this.ring[this.next] = record;
    this.next = (this.next + 1) % this.size;
  }

  list(): GroundTruth[] {
    return this.ring.length < this.size ? [...this.ring] : [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  clear(): void {
    this.ring = [];
    this.next = 0;
  }
}
