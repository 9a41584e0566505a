/** Every scheduled request ends in exactly one of these classes. */
export const OUTCOMES = ['ok', 'http_429', 'http_4xx', 'http_5xx', 'connect_error', 'timeout', 'stream_error', 'dropped'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * Hot-path callbacks for one streamed request. Times are absolute milliseconds
 * (`performance.timeOrigin + performance.now()`), taken when the bytes arrived.
 */
export interface StreamObserver {
  /** The request is being written on a connection; the time since `send` was spent waiting inside the HTTP pool (connecting included). */
  onWritten(t: number): void;
  onHeaders(t: number, status: number): void;
  /** One SSE event that carried output; `reasoning` for reasoning_content, `answer` for content/text. */
  onContent(t: number, kind: 'reasoning' | 'answer'): void;
  onUsage(promptTokens: number, completionTokens: number): void;
  /** Called exactly once per request. `detail` is a short, secret-free reason for non-ok outcomes. */
  onEnd(t: number, outcome: Outcome, detail?: string): void;
}
