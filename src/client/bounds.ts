/**
 * What a server may send before the client stops believing it. Each bound is far beyond any
 * real stream and well inside what the generator can hold: past it the bytes or numbers are
 * the server's fault, and the request ends as a `stream_error` naming the bound, never as a
 * crash of the run or a histogram that cannot record the value.
 */

/**
 * One SSE line, and one event's data, in bytes. A streamed chunk is a few hundred bytes; a
 * long reasoning delta or a whole-answer final chunk a few hundred kB. The framer buffers a
 * line until its end arrives, so without a bound one server that never writes a newline grows
 * the generator's memory without end.
 */
export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;
/** The range `load.max_event_bytes` may set. */
export const MIN_EVENT_BYTES = 1024;
export const MAX_EVENT_BYTES = 64 * 1024 * 1024;

/**
 * A token count in `usage`. No context window holds a billion tokens; the histograms that
 * record the counts (auto-resizing HdrHistograms) would try to grow to hold 1e16 and throw.
 */
export const MAX_TOKEN_COUNT = 1_000_000_000;

/** Why a `usage` count cannot be one, as the end of "usage.<field> …"; null when it can. */
export function tokenCountProblem(value: number): string | null {
  if (Number.isInteger(value) && value >= 0 && value <= MAX_TOKEN_COUNT) return null;
  const shown = Number.isFinite(value) ? String(value) : 'not a finite number';
  return `is ${shown}; expected an integer from 0 to ${MAX_TOKEN_COUNT.toExponential(0).replace('+', '')}`;
}

/** `4194304` → `4 MiB`, `1536` → `1.5 KiB`. */
export function byteSize(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / (1024 * 1024)).toFixed(1)} MiB`;
  return `${+(n / 1024).toFixed(1)} KiB`;
}
