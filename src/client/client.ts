/**
 * The HTTP side of a measurement: one streamed POST per `send`, bytes handled as they arrive,
 * exactly one `onEnd` per request. See `StreamRequest` for how each outcome class is decided.
 */
import { buildConnector, Pool, type Dispatcher } from 'undici';
import { now } from '../time.js';
import { detailSanitizer } from './detail.js';
import { errorMessage, newStreamEvent, readEvent, type Api, type StreamEvent } from './openai.js';
import { SseFramer, type SseSink } from './sse.js';
import type { Outcome, StreamObserver } from './types.js';

export interface ClientOptions {
  /** An OpenAI SDK style base URL, e.g. `http://127.0.0.1:8000/v1`; a trailing slash is fine. */
  baseUrl: string;
  api: Api;
  headers?: Record<string, string>;
  apiKey?: string;
  /** Total budget per request, from `send` to the end of the stream. */
  timeoutMs: number;
  /** TCP/TLS connect budget; defaults to `timeoutMs`. */
  connectTimeoutMs?: number;
}

export interface RequestHandle {
  /**
   * Ends the request now. Both reasons report outcome `timeout` (the client stopped waiting);
   * `cancelled` (the run was interrupted) is told apart by its detail, "cancelled".
   */
  abort(reason: 'timeout' | 'cancelled'): void;
}

export interface Client {
  /**
   * Starts one streamed request. `obs.onEnd` is called exactly once, possibly before `send`
   * returns. Note: undici frees a connection one event-loop turn after its response ends, so a
   * request sent from inside another's `onEnd` goes out on a different (maybe new) connection.
   */
  send(body: string, obs: StreamObserver, requestId: string): RequestHandle;
  /** Waits for in-flight requests (each bounded by its timeout), then closes the connections. */
  close(): Promise<void>;
}

export function createClient(opts: ClientOptions): Client {
  const url = new URL(opts.baseUrl);
  const path = url.pathname.replace(/\/+$/, '') + (opts.api === 'chat' ? '/chat/completions' : '/completions') + url.search;
  // Built once and shared by every request (undici only reads it). Lower-cased keys so a
  // configured header replaces a default instead of being sent twice.
  const merged = new Map<string, string>([
    ['content-type', 'application/json'],
    ['accept', 'text/event-stream'],
    ['user-agent', 'loadgate'],
  ]);
  for (const [k, v] of Object.entries(opts.headers ?? {})) merged.set(k.toLowerCase(), v);
  if (opts.apiKey) merged.set('authorization', `Bearer ${opts.apiKey}`);
  const headers = [...merged].flat();

  const pool = new Pool(url.origin, {
    // No client-side cap: an open-loop load must not queue here; the dispatcher owns the in-flight cap.
    connections: null,
    // One request per connection at a time, as real streaming clients do.
    pipelining: 1,
    // undici's default, kept explicit: shorter than common server idle timeouts (uvicorn: 5 s),
    // so we do not send on a connection the server is closing and misreport a connect error.
    keepAliveTimeout: 4_000,
    // Disabled: each request's own timer owns the whole budget, so a timeout is classified once, here.
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: stampingConnector(opts.connectTimeoutMs ?? opts.timeoutMs),
  });

  // Header values may be credentials too (x-api-key); very short ones are not, and redacting
  // them would mangle every detail that happens to contain, say, "1".
  const secrets = [opts.apiKey ?? '', ...Object.values(opts.headers ?? {}).filter((v) => v.length >= 8)];
  const ctx: RequestContext = {
    timeoutMs: opts.timeoutMs,
    sanitize: detailSanitizer(secrets),
    event: newStreamEvent(),
  };

  return {
    send(body, obs, requestId) {
      const request = new StreamRequest(ctx, obs);
      // x-request-id lets a server's logs (and the simulator's ground truth) be joined with our records.
      pool.dispatch({ path, method: 'POST', headers: [...headers, 'x-request-id', requestId], body }, request);
      return request;
    },
    close: () => pool.close(),
  };
}

/** Per-client state shared by its requests. */
interface RequestContext {
  timeoutMs: number;
  sanitize: (text: string) => string;
  /** Scratch for `readEvent`: events are handled one at a time on one thread, so one suffices. */
  event: StreamEvent;
}

/** Error bodies are read only for their message; this much is plenty. */
const ERROR_BODY_BYTES = 2048;
/** Handed to undici when we end a request ourselves; undici's resulting error callback is ignored. */
const ENDED = new Error('loadgate ended the request');

/**
 * One request's life. Outcomes:
 * - status 429 → http_429; other 4xx → http_4xx; 5xx → http_5xx (body read for its message);
 *   any other non-2xx → stream_error (there is no event stream to measure).
 * - an error before any response (refused, DNS, connect timeout, socket closed) → connect_error;
 *   the request timer firing before a connection was made → connect_error too.
 * - the request timer (timeoutMs from send) or `abort` → timeout; detail "cancelled" for cancels.
 * - error event, malformed chunk, connection lost mid-stream, end without `[DONE]` → stream_error.
 * - `[DONE]` then the end of the response → ok. After `[DONE]` every token has been delivered
 *   and measured, so a connection error or the timer firing before the close is still ok.
 */
class StreamRequest implements Dispatcher.DispatchHandler, SseSink, RequestHandle {
  private controller: Dispatcher.DispatchController | null = null;
  private readonly timer: NodeJS.Timeout;
  private ended = false;
  private status = 0;
  private framer: SseFramer | null = null;
  private sawDone = false;
  /** Arrival time of the bytes being processed. */
  private t = 0;
  private errorBody: Buffer[] | null = null;
  private errorBodyLen = 0;

  constructor(
    private readonly ctx: RequestContext,
    private readonly obs: StreamObserver,
  ) {
    this.timer = setTimeout(onDeadline, ctx.timeoutMs, this);
  }

  abort(reason: 'timeout' | 'cancelled'): void {
    if (this.ended) return;
    const t = now();
    if (this.sawDone)
      this.fail(t, 'ok'); // complete; only the server's close was missing
    else if (reason === 'cancelled') this.fail(t, 'timeout', 'cancelled');
    else if (this.status !== 0 && !isSuccess(this.status)) this.fail(t, ...this.httpOutcome());
    else if (this.controller === null) this.fail(t, 'connect_error', `no connection within ${this.ctx.timeoutMs} ms`);
    else if (this.status === 0) this.fail(t, 'timeout', `no response within ${this.ctx.timeoutMs} ms`);
    else this.fail(t, 'timeout', `stream not finished within ${this.ctx.timeoutMs} ms`);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.ended)
      controller.abort(ENDED); // timed out or cancelled while connecting
    else this.obs.onWritten(now());
  }

  onResponseStart(_c: Dispatcher.DispatchController, status: number): void {
    if (this.ended) return;
    this.status = status;
    this.obs.onHeaders(readAt, status);
    if (isSuccess(status)) this.framer = new SseFramer(this);
    else this.errorBody = [];
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.ended) return;
    this.t = readAt;
    if (this.framer !== null) this.framer.push(chunk);
    else if (this.errorBody !== null && this.errorBodyLen < ERROR_BODY_BYTES) {
      const kept = chunk.subarray(0, ERROR_BODY_BYTES - this.errorBodyLen);
      this.errorBody.push(kept);
      this.errorBodyLen += kept.length;
    }
  }

  onEvent(data: Buffer, length: number, isError: boolean): void {
    if (this.ended || this.sawDone) return;
    if (isError) {
      const text = data.toString('utf8', 0, length);
      this.fail(this.t, 'stream_error', 'error event: ' + (errorMessage(tryParse(text)) ?? text));
      return;
    }
    const ev = readEvent(data, 0, length, this.ctx.event);
    if (ev.error !== null) {
      this.fail(this.t, 'stream_error', ev.error);
      return;
    }
    if (ev.content !== null) this.obs.onContent(this.t, ev.content);
    if (ev.usage) this.obs.onUsage(ev.promptTokens, ev.completionTokens);
    if (ev.done) this.sawDone = true;
  }

  onResponseEnd(): void {
    if (this.ended) return;
    const t = readAt;
    if (this.framer !== null) {
      this.t = t;
      this.framer.end();
      if (this.ended) return;
      if (this.sawDone) this.finish(t, 'ok');
      else this.finish(t, 'stream_error', 'stream ended without [DONE]');
    } else {
      this.finish(t, ...this.httpOutcome());
    }
  }

  onResponseError(_c: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.ended) return; // includes the error undici reports after we abort
    const t = now(); // errors come from socket events, not from a read
    const reason = errorDetail(err);
    if (this.status === 0) this.finish(t, 'connect_error', reason);
    else if (!isSuccess(this.status)) this.finish(t, ...this.httpOutcome());
    else if (this.sawDone) this.finish(t, 'ok');
    else this.finish(t, 'stream_error', 'connection lost mid-stream: ' + reason);
  }

  /** Ends the request and tells undici to stop it. */
  private fail(t: number, outcome: Outcome, detail?: string): void {
    this.finish(t, outcome, detail);
    this.controller?.abort(ENDED);
  }

  private finish(t: number, outcome: Outcome, detail?: string): void {
    this.ended = true;
    clearTimeout(this.timer);
    this.framer = null;
    this.errorBody = null;
    this.obs.onEnd(t, outcome, detail === undefined ? undefined : this.ctx.sanitize(detail));
  }

  private httpOutcome(): [Outcome, string] {
    const s = this.status;
    const outcome: Outcome = s === 429 ? 'http_429' : s >= 400 && s < 500 ? 'http_4xx' : s >= 500 && s < 600 ? 'http_5xx' : 'stream_error';
    let detail = `HTTP ${s}`;
    if (this.errorBody !== null && this.errorBodyLen > 0) {
      const text = Buffer.concat(this.errorBody).toString('utf8');
      detail += ': ' + (errorMessage(tryParse(text)) ?? text);
    }
    return [outcome, detail];
  }
}

function onDeadline(request: StreamRequest): void {
  request.abort('timeout');
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9`, from Node and undici errors alike. Node's
 * happy-eyeballs connect (a host with IPv4 and IPv6 addresses) fails with an AggregateError
 * whose own message is empty, so the first attempt's message stands in for it.
 */
function errorDetail(err: Error): string {
  const code = (err as { code?: unknown }).code;
  const message = err.message || (err instanceof AggregateError ? String((err.errors[0] as Error | undefined)?.message ?? '') : '');
  return typeof code === 'string' ? `${code}: ${message}` : message || err.name;
}

/**
 * One timestamp per socket read: every event that arrived in one read gets the read's arrival
 * time, not the time its turn came in our processing. undici reads a socket when it emits
 * 'readable' and handles the bytes in one synchronous pass; a listener put before undici's
 * stamps the read first. No allocation per read (expiring a stamp with a microtask cost a
 * sixth of the generator's garbage).
 */
let readAt = 0;
function stampRead(): void {
  readAt = now();
}

/** undici's own connector, with every new socket stamping its reads. */
function stampingConnector(timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs });
  return (options, callback) =>
    connect(options, (...result) => {
      result[1]?.prependListener('readable', stampRead);
      callback(...result);
    });
}
