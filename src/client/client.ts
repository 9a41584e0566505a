/**
 * The HTTP side of a measurement: one streamed POST per `send`, bytes handled as they arrive,
 * exactly one `onEnd` per request. See `StreamRequest` for how each outcome class is decided.
 */
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { buildConnector, Pool, type Dispatcher } from 'undici';
import { now } from '../time.js';
import { byteSize, DEFAULT_MAX_EVENT_BYTES } from './bounds.js';
import { detailSanitizer } from './detail.js';
import { deliverReadsDirectly, readIntoRegions, type ReadClock } from './direct-reads.js';
import { runDelayMs } from './run-delay.js';
import { KeepAliveWatch, type KeepAliveFacts } from './keep-alive.js';
import { answerText, errorMessage, newStreamEvent, readEvent, type Api, type StreamEvent } from './openai.js';
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
  /** The longest SSE line or event the client buffers (src/client/bounds.ts); longer is a stream_error. */
  maxEventBytes?: number;
}

export interface RequestHandle {
  /**
   * Ends the request now: `timeout` when the client stopped waiting, `cancelled` when the run
   * was interrupted (outcome `cancelled`, unless the stream had already delivered `[DONE]`).
   */
  abort(reason: 'timeout' | 'cancelled'): void;
}

export interface Client {
  /**
   * Starts one streamed request. `obs.onEnd` is called exactly once, possibly before `send`
   * returns. Note: undici frees a connection one event-loop turn after its response ends, so a
   * request sent from inside another's `onEnd` goes out on a different (maybe new) connection.
   */
  send(body: string, obs: StreamObserver, requestId: string, capture?: (text: string) => void): RequestHandle;
  /** What the server did with kept-alive connections, and whether the client stopped reusing them. */
  keepAlive(): KeepAliveFacts;
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

  const watch = new KeepAliveWatch();
  const poolOptions = (onConnect?: (socket: Socket) => void): Pool.Options => ({
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
    connect: stampingConnector(opts.connectTimeoutMs ?? opts.timeoutMs, onConnect),
  });
  // Kept-alive connections, watched for a server that closes them after each response.
  const pool = new Pool(
    url.origin,
    poolOptions((socket) => watch.connected(socket)),
  );
  // One connection per request (every request here is sent with `reset: true`, i.e.
  // `Connection: close`, so undici never reuses its socket): for re-sending a request that a
  // reused connection lost, and for every request once keep-alive is disabled. Connecting is
  // then part of each request's pool wait.
  const fresh = new Pool(url.origin, poolOptions());

  // Header values may be credentials too (x-api-key); very short ones are not, and redacting
  // them would mangle every detail that happens to contain, say, "1".
  const secrets = [opts.apiKey ?? '', ...Object.values(opts.headers ?? {}).filter((v) => v.length >= 8)];
  const ctx: RequestContext = {
    timeoutMs: opts.timeoutMs,
    sanitize: detailSanitizer(secrets),
    event: newStreamEvent(),
    maxEventBytes: opts.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
    watch,
    resend: (request) => fresh.dispatch({ ...request.options, reset: true }, request),
  };

  return {
    send(body, obs, requestId, capture) {
      // x-request-id lets a server's logs (and the simulator's ground truth) be joined with our records.
      const options: Dispatcher.DispatchOptions = { path, method: 'POST', headers: [...headers, 'x-request-id', requestId], body };
      const request = new StreamRequest(ctx, obs, options, !watch.disabled, capture);
      if (watch.disabled) ctx.resend(request);
      else pool.dispatch(options, request);
      return request;
    },
    keepAlive: () => watch.facts(),
    close: async () => {
      await Promise.all([pool.close(), fresh.close()]);
    },
  };
}

/** Per-client state shared by its requests. */
interface RequestContext {
  timeoutMs: number;
  sanitize: (text: string) => string;
  /** Scratch for `readEvent`: events are handled one at a time on one thread, so one suffices. */
  event: StreamEvent;
  maxEventBytes: number;
  watch: KeepAliveWatch;
  /** Sends a request on a connection of its own. */
  resend(request: StreamRequest): void;
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
 *   the request timer firing before a connection was made → connect_error too. Except: the
 *   connection was a reused kept-alive one and the server closed it (FIN or RST) before the
 *   response began. The server never answered it; it is sent again at once, on a new
 *   connection, within the same budget from the same send time (`onReconnect`), and only that
 *   second attempt's fate counts.
 * - the request timer (timeoutMs from send) → timeout; `abort('cancelled')` → cancelled.
 * - error event, malformed chunk, connection lost mid-stream, end without `[DONE]` → stream_error;
 *   a 2xx that is not `text/event-stream` (an HTML page, a plain JSON body) and brings no
 *   `[DONE]` says what came instead.
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
  /** Arrival time of the bytes being processed, and how late it can be (ms). */
  private t = 0;
  private late = 0;
  private errorBody: Buffer[] | null = null;
  private errorBodyLen = 0;
  /** Written on a connection that was new for it, so a loss before the response is the server's doing, not a stale connection. */
  private freshConnection = false;
  private reconnected = false;
  /** The 2xx response's media type when it is not an event stream. */
  private wrongType: string | null = null;
  /** The response may leave its connection open for the next request (HTTP/1.1, no `Connection: close`). */
  private keepsConnection = false;
  /** A 429's Retry-After, shown in its detail: an open-loop load does not retry, but the reader should know. */
  private retryAfter = '';

  constructor(
    private readonly ctx: RequestContext,
    private readonly obs: StreamObserver,
    readonly options: Dispatcher.DispatchOptions,
    /** Sent on the kept-alive pool, whose connections the watch follows. */
    private watched: boolean,
    /** Takes each answer event's text, for a conversation's next turn; absent, no text is decoded (the usual, cheaper path). */
    private readonly capture?: (text: string) => void,
  ) {
    this.timer = setTimeout(onDeadline, ctx.timeoutMs, this);
  }

  abort(reason: 'timeout' | 'cancelled'): void {
    if (this.ended) return;
    const t = now();
    if (this.sawDone)
      this.finishAndAbort(t, 'ok'); // complete; only the server's close was missing
    else if (reason === 'cancelled') this.finishAndAbort(t, 'cancelled', 'the run was interrupted');
    else if (this.status !== 0 && !isSuccess(this.status)) this.finishAndAbort(t, ...this.httpOutcome());
    else if (this.controller === null) this.finishAndAbort(t, 'connect_error', `no connection within ${this.ctx.timeoutMs} ms`);
    else if (this.status === 0) this.finishAndAbort(t, 'timeout', `no response within ${this.ctx.timeoutMs} ms`);
    else this.finishAndAbort(t, 'timeout', `stream not finished within ${this.ctx.timeoutMs} ms`);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // undici writes a new connection's first request synchronously from the connect callback
    // (src: lib/dispatcher/client.js connect → resume → writeH1), where `connecting` is set;
    // any other write is on a connection that carried a request before.
    this.freshConnection = connecting !== null;
    if (this.ended)
      controller.abort(ENDED); // timed out or cancelled while connecting
    else this.obs.onWritten(now());
  }

  onResponseStart(c: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    // undici keeps the response's raw header bytes on the controller for the whole response
    // (lib/handler/unwrap-handler.js), as views of the read region they arrived in
    // (direct-reads.ts): that would keep the region alive for the whole stream, long enough to
    // reach the old generation, where only a full collection frees it. Nothing reads them after
    // this call, which has them parsed to strings.
    (c as { rawHeaders?: unknown }).rawHeaders = null;
    if (this.ended) return;
    this.status = status;
    if (this.watched) {
      this.ctx.watch.responseStarted(readSocket);
      this.keepsConnection = !/\bclose\b/i.test(String(headers.connection ?? ''));
    }
    this.obs.onHeaders(readAt, status);
    if (isSuccess(status)) {
      this.framer = new SseFramer(this, this.ctx.maxEventBytes);
      const type = mediaType(headers['content-type']);
      if (type !== 'text/event-stream') this.wrongType = type || 'no content-type';
    } else {
      this.errorBody = [];
      if (status === 429) this.retryAfter = headerValue(headers['retry-after']);
    }
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.ended) return;
    this.t = readAt;
    this.late = readLate;
    if (this.framer !== null) this.frame(chunk);
    else if (this.errorBody !== null && this.errorBodyLen < ERROR_BODY_BYTES) {
      const kept = chunk.subarray(0, ERROR_BODY_BYTES - this.errorBodyLen);
      this.errorBody.push(kept);
      this.errorBodyLen += kept.length;
    }
  }

  /**
   * The response's bytes through the framer and the event reader. Whatever a server sends, an
   * exception it provokes ends this request as a stream_error: it never reaches undici (which
   * would report it as a connection error) or the run.
   */
  private frame(chunk: Buffer | null): void {
    try {
      if (chunk === null) this.framer?.end();
      else this.framer?.push(chunk);
    } catch (err) {
      if (!this.ended) this.finishAndAbort(this.t, 'stream_error', `unreadable stream: ${(err as Error).message}`);
    }
  }

  onOversize(maxBytes: number): void {
    if (this.ended || this.sawDone) return;
    this.finishAndAbort(
      this.t,
      'stream_error',
      `an SSE line or event longer than ${byteSize(maxBytes)} (load.max_event_bytes); the stream was abandoned`,
    );
  }

  onEvent(data: Buffer, start: number, end: number, isError: boolean): void {
    if (this.ended || this.sawDone) return;
    if (isError) {
      const text = data.toString('utf8', start, end);
      this.finishAndAbort(this.t, 'stream_error', 'error event: ' + (errorMessage(tryParse(text)) ?? text));
      return;
    }
    const ev = readEvent(data, start, end, this.ctx.event);
    if (ev.error !== null) {
      this.finishAndAbort(this.t, 'stream_error', ev.error);
      return;
    }
    if (ev.content !== null) this.obs.onContent(this.t, ev.content, this.late);
    if (this.capture !== undefined && ev.content === 'answer') this.capture(answerText(data.toString('utf8', start, end)));
    if (ev.usage) this.obs.onUsage(ev.promptTokens, ev.completionTokens);
    if (ev.done) this.sawDone = true;
  }

  onResponseEnd(): void {
    if (this.keepsConnection) this.ctx.watch.responseEnded(readSocket, readAt);
    if (this.ended) return;
    const t = readAt;
    if (this.framer !== null) {
      this.t = t;
      this.frame(null);
      if (this.ended) return;
      if (this.sawDone) this.finish(t, 'ok');
      else if (this.wrongType !== null) this.finish(t, 'stream_error', `expected text/event-stream, got ${this.wrongType}`);
      else this.finish(t, 'stream_error', 'stream ended without [DONE]');
    } else {
      this.finish(t, ...this.httpOutcome());
    }
  }

  onResponseError(_c: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.ended) return; // includes the error undici reports after we abort
    const t = now(); // errors come from socket events, not from a read
    if (this.status === 0 && this.controller !== null && !this.freshConnection && !this.reconnected && isConnectionLoss(err)) {
      this.reconnected = true;
      this.controller = null;
      this.watched = false;
      this.obs.onReconnect(t);
      this.ctx.resend(this);
      return;
    }
    const reason = errorDetail(err);
    if (this.status === 0) this.finish(t, 'connect_error', reason);
    else if (!isSuccess(this.status)) this.finish(t, ...this.httpOutcome());
    else if (this.sawDone) this.finish(t, 'ok');
    else this.finish(t, 'stream_error', 'connection lost mid-stream: ' + reason);
  }

  /** Ends the request with this outcome, whichever it is, and tells undici to stop it (finish alone: the connection has already ended). */
  private finishAndAbort(t: number, outcome: Outcome, detail?: string): void {
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
    if (this.retryAfter) detail += ` (Retry-After: ${this.retryAfter})`;
    return [outcome, detail];
  }
}

/**
 * The server closed the connection under the request: a FIN (undici's "other side closed"),
 * a RST, or a write into a closed socket. Not a refused or timed-out connect: those happen
 * only on new connections.
 */
function isConnectionLoss(err: Error): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

function headerValue(header: string | string[] | undefined): string {
  return (Array.isArray(header) ? header[0] : header) ?? '';
}

/** `text/event-stream; charset=utf-8` → `text/event-stream`; absent → ''. */
function mediaType(header: string | string[] | undefined): string {
  return headerValue(header).split(';')[0].trim().toLowerCase();
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
 * time, not the time its turn came in our processing. The read is stamped where it happens, in
 * the poll phase, and its chunk goes on to undici after that poll phase with the stamp handed
 * back (direct-reads.ts); undici handles the chunk's bytes in one synchronous pass, in which
 * `readAt` and `readSocket` are the read's own, so a response can tell which connection it came
 * on. No allocation per read (expiring a stamp with a microtask cost a sixth of the generator's
 * garbage).
 *
 * The same clock times the event loop's read turns for the timestamp error bound
 * (src/metrics/loop-turns.ts): the first read of a poll phase opens a turn, which closes once the
 * phase's reads have all been handled, in the check phase right after it. So the cost is one
 * clock read per read, and one more (and one immediate) per loop turn that read anything.
 */
let readAt = 0;
let readSocket: Socket | null = null;
let turnReads = 0;
let turnStart = 0;
let turnLastRead = 0;
const turnSinks = new Set<ReadTurnSink>();
const readClock: ReadClock = {
  read(): number {
    const t = now();
    if (turnSinks.size > 0 && turnReads++ === 0) {
      turnStart = t;
      sampleIdle(t);
      busySince = Math.max(busySince, turnEnds[turnCount % 2]);
    }
    turnLastRead = t;
    return t;
  },
  // Taken at the read: a check-phase caller may move `busySince` on before the read is handled,
  // for later reads only (checkPhaseBefore).
  readSince(): number {
    return turnSinks.size > 0 ? busySince : NaN;
  },
  handOn(socket: Socket, at: number, since: number): void {
    readAt = at;
    readSocket = socket;
    readLate = Number.isNaN(since) ? 0 : at - since;
  },
  handedOn(): void {
    if (turnReads === 0) return;
    const t = now();
    sampleIdle(t);
    turnEnds[turnCount++ % 2] = t;
    const reads = turnReads;
    turnReads = 0;
    for (const sink of turnSinks) sink(turnStart, t, reads, turnLastRead);
  },
};

/*
 * How late one read can be: the read at time t finds a byte that arrived after the loop last
 * looked at its sockets without finding it, so it is late by at most t − (that look). Two
 * lower bounds on that moment, `busySince` the larger:
 *
 * - The turn before last. The loop polls its sockets once per iteration, and a poll that finds
 *   bytes opens a read turn, closed by an immediate in the check phase after it. A read in turn
 *   k comes from a byte the previous iteration's poll did not see, and that poll began after the
 *   check phase that closed turn k − 2 (turn k − 1 was in that poll or before it). So the byte
 *   arrived after turn k − 2 ended. Near the generator's ceiling every iteration reads, and
 *   this is about two turns back: the bursts in which reads are late are in it.
 *   The open-loop dispatcher's spin adds the same bound for iterations without reads
 *   (checkPhaseBefore).
 * - The last idle wait. The loop waits idle in the poll only while no socket is readable, so a
 *   byte that arrived during a wait ended it. The wait itself is not visible, but the loop's
 *   idle time is (performance.nodeTiming.idleTime, libuv's clock around the poll, booked when the
 *   poll returns): sampled at s and again at a later u with Δ > 0 idle between, all of it lies in
 *   (s, u], so the last wait ended no earlier than s + Δ. Sampled where each read turn starts
 *   and ends (a 60 ns counter). At light load the loop idles between reads and this is the
 *   tight one. But the wait ends when the thread runs again, not when the byte arrives: on a
 *   busy core the woken thread first waits for the core, and libuv's clock books that wait as
 *   idle too. The thread's run-queue wait (src/client/run-delay.ts) over the same span, W, holds
 *   that wait whole, so the byte arrived no earlier than s + Δ − W. Where no schedstat exists,
 *   W = 0. A thread that was not run at all, though, is on no run queue: stopped (SIGSTOP), or
 *   its virtual CPU not run by the host, the thread books the whole hold as idle, and the byte
 *   may have come at any point of it. A timer shows such a hold: the wait cannot legitimately
 *   outlast a timer armed before it (libuv sleeps until the earliest one is due), so a wait that
 *   began no later than a due time d (s ≤ d) and ran past d + TIMER_SLACK_MS (s + Δ − W beyond
 *   it) was held, and its end says nothing of the byte's arrival: that read keeps the turn
 *   before last. The open-loop dispatcher and the loop probe tell when their timers are due
 *   (timerArmed); a hold that began after the last due before its end goes unseen by this, as a
 *   hold shorter than the slack does.
 *
 * Unlike the turn-length figures of the result's chunk bound (src/result/timestamp-error.ts),
 * which describe a typical read, this bounds each read itself, so a request can carry it: when
 * late reads cluster in bursts, which are also when a server's tail forms, the requests in a
 * latency quantile's tail are the late ones, and their own bounds show it.
 */
let readLate = 0;
let sampledAt = now();
let sampledIdle = performance.nodeTiming.idleTime;
/** 0 until the first look after an idle wait, which then counts the thread's whole wait so far: high once, never low, and no read at start-up. */
let sampledRunDelay = 0;
let busySince = sampledAt;
/** When the last two read turns ended, by turn number modulo 2. */
const turnEnds = [sampledAt, sampledAt];
let turnCount = 0;
/**
 * Told by a caller that spins through setImmediate (the open-loop dispatcher) the time of its
 * previous check-phase run, from inside the next one: that poll phase came between the two, so
 * any byte read from now on arrived after `t` (the turn-before-last argument above, for loop
 * iterations that read nothing).
 */
export function checkPhaseBefore(t: number): void {
  if (t > busySince) busySince = t;
}

function sampleIdle(t: number): void {
  const idle = performance.nodeTiming.idleTime;
  if (idle > sampledIdle) {
    // The OS's share of the wait (see `busySince` above): read only after an idle wait, where
    // the loop has time to spare, so a busy loop pays nothing for it.
    const runDelay = runDelayMs();
    const ready = runDelay - sampledRunDelay;
    sampledRunDelay = runDelay;
    const waitEnd = sampledAt + (idle - sampledIdle) - ready;
    if (!heldPastTimer(sampledAt, waitEnd)) busySince = Math.max(busySince, Math.min(t, waitEnd));
  }
  heldDue = Infinity;
  sampledAt = t;
  sampledIdle = idle;
}

/**
 * How far past a timer's due time an idle wait may end without the thread having been held:
 * libuv's timers are due in whole milliseconds of its loop clock (up to 1 ms past the due time
 * given here), the kernel adds its timer slack (50 µs), and the wake-up itself takes tens of µs.
 */
const TIMER_SLACK_MS = 1.5;
/** The timers of this thread's loop, by owner: when each is due (see `busySince` above). */
const timersDue = new Map<object, number>();
/**
 * The earliest due time of the timers that ran more than the slack after it since the loop's
 * last look at the idle clock. A wait held past a due time often ends without a read: libuv's
 * poll returns once its timeout has passed, the timers run (and are armed again) first, and the
 * sockets are read in the poll after. So the due time of a timer that ran late is kept for the
 * next look, which holds the wait against it (the earliest, the one a held wait outlasted most).
 */
let heldDue = Infinity;

/** `owner`'s timer is due at `at` (replacing any earlier one of the same owner). */
export function timerArmed(owner: object, at: number): void {
  timersDue.set(owner, at);
}

/** `owner`'s timer ran, at `at`. */
export function timerRan(owner: object, at: number): void {
  const due = timersDue.get(owner);
  timersDue.delete(owner);
  if (due !== undefined && at > due + TIMER_SLACK_MS && due < heldDue) heldDue = due;
}

/** `owner`'s timer was cleared before it ran. */
export function timerCleared(owner: object): void {
  timersDue.delete(owner);
}

/** Whether an idle wait that began no earlier than `from` and ended no earlier than `end` outlasted a timer due inside it. */
function heldPastTimer(from: number, end: number): boolean {
  const outlasted = (due: number) => from <= due && end > due + TIMER_SLACK_MS;
  if (outlasted(heldDue)) return true;
  for (const due of timersDue.values()) if (outlasted(due)) return true;
  return false;
}

/**
 * Told of every read turn of this thread's event loop: from the first socket read of a poll
 * phase to the end of the reads' handling in the check phase after it (and whatever else ran in
 * between: microtasks, a GC pause), with the number of socket reads in it and when the last of
 * them was stamped.
 */
export type ReadTurnSink = (startAt: number, endAt: number, reads: number, lastReadAt: number) => void;

/** Starts telling `sink` of read turns; the returned function stops it. Every client of the thread counts. */
export function observeReadTurns(sink: ReadTurnSink): () => void {
  turnSinks.add(sink);
  return () => {
    turnSinks.delete(sink);
  };
}

/** Set while undici writes the first request on a new connection (see `onRequestStart`). */
let connecting: Socket | null = null;

/** undici's own connector, with every new socket stamping its reads, and shown to `onConnect`. */
function stampingConnector(timeoutMs: number, onConnect?: (socket: Socket) => void): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs, onread: readIntoRegions });
  return (options, callback) =>
    connect(options, (...result) => {
      const socket = result[1];
      if (socket) {
        deliverReadsDirectly(socket, readClock);
        onConnect?.(socket);
      }
      connecting = socket ?? null;
      try {
        callback(...result);
      } finally {
        connecting = null;
      }
    });
}
