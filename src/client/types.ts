/**
 * Every scheduled request ends in exactly one of these classes. `cancelled`: the run was
 * interrupted (Ctrl-C, SIGTERM) while the request was in flight; neither it nor the server failed.
 */
export const OUTCOMES = [
  'ok',
  'http_429',
  'http_4xx',
  'http_5xx',
  'connect_error',
  'timeout',
  'stream_error',
  'dropped',
  'cancelled',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * Hot-path callbacks for one streamed request. Times are absolute milliseconds
 * (`now()` of src/time.ts), taken when the bytes arrived.
 */
export interface StreamObserver {
  /**
   * The request is being written on a connection; the time since `send` was spent waiting inside
   * the HTTP pool (connecting included). Called again when the request is re-sent (`onReconnect`).
   */
  onWritten(t: number): void;
  /**
   * The request was lost, unanswered, on a reused kept-alive connection the server had closed,
   * and is being sent again, once, on a new connection. Its intended send time stays.
   */
  onReconnect(t: number): void;
  onHeaders(t: number, status: number): void;
  /**
   * One SSE event that carried output; `reasoning` for reasoning_content, `answer` for content/text.
   * `late`: how late `t` can be at most (ms): the time since the event loop last looked at its
   * sockets (see `readClock` in client.ts); 0 while no one observes read turns.
   */
  onContent(t: number, kind: 'reasoning' | 'answer', late: number): void;
  onUsage(promptTokens: number, completionTokens: number): void;
  /** Called exactly once per request. `detail` is a short, secret-free reason for non-ok outcomes. */
  onEnd(t: number, outcome: Outcome, detail?: string): void;
}
