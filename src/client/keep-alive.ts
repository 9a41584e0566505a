import { Count, Type, type Static } from '../json-schema.js';
/**
 * What a server does with the connections it advertises as kept alive. Some servers
 * (llama.cpp's llama-server) answer HTTP/1.1 without `Connection: close`, so the client keeps
 * the connection for the next request, and then close it right after each streamed response.
 * A request written on such a connection before the close reaches us dies unprocessed. This
 * module watches each kept-alive connection after a response: either another response starts
 * on it (the server kept it) or the server closes it soon after (it did not). When the server
 * has closed most of them, the client stops reusing connections to it.
 */
import type { Socket } from 'node:net';
import { now } from '../time.js';

/** The words the result and the report use when keep-alive was turned off. */
export const KEEP_ALIVE_DISABLED_REASON = 'the server closes connections after each stream; keep-alive disabled';

/**
 * A close later than this after the response is the server's idle timeout, not a close
 * "after the response": evidence of neither. llama-server closes within a millisecond; 1 s
 * leaves room for a busy server or machine, and is below common idle timeouts (uvicorn 5 s).
 */
export const SERVER_CLOSE_WINDOW_MS = 1_000;

/** Keep-alive is turned off once the server has closed this many connections right after a response… */
export const MIN_SERVER_CLOSES = 3;

/**
 * The client's account of keep-alive over a run. `responses_observed` counts kept-alive
 * responses whose connection's fate was seen (reused for another response, or closed by the
 * server within SERVER_CLOSE_WINDOW_MS); `server_closed` those the server closed.
 */
export const KeepAliveFactsSchema = Type.Object({
  disabled: Type.Boolean(),
  responses_observed: Count(),
  server_closed: Count(),
  reason: Type.Optional(Type.String({ description: 'Present when disabled: why, in words.' })),
});
export type KeepAliveFacts = Static<typeof KeepAliveFactsSchema>;

/** Per connection: when its last response ended, while no later response has started (NaN otherwise). */
interface ConnectionState {
  idleSince: number;
  serverClosed: boolean;
}

/**
 * The rule: keep-alive is disabled for the rest of the run as soon as the server has closed at
 * least MIN_SERVER_CLOSES connections right after a response AND more than half of all observed
 * responses. Early on that reads "3 of the first 3, 4 or 5"; later, "a majority". A server that
 * closes now and then (a restart, an idle timeout) never gets there; one that closes after every
 * stream gets there after its third response.
 */
export function shouldDisable(serverClosed: number, observed: number): boolean {
  return serverClosed >= MIN_SERVER_CLOSES && serverClosed * 2 > observed;
}

export class KeepAliveWatch {
  private observed = 0;
  private closed = 0;
  private off = false;
  private readonly connections = new WeakMap<Socket, ConnectionState>();

  get disabled(): boolean {
    return this.off;
  }

  /** A new kept-alive connection: watch how the server ends it. */
  connected(socket: Socket): void {
    const state: ConnectionState = { idleSince: NaN, serverClosed: false };
    this.connections.set(socket, state);
    // 'end' is the server's FIN; ECONNRESET/EPIPE its RST. Our own closes (idle timeout, a
    // `Connection: close` response, the run's end) show neither and decide nothing.
    const serverClosed = () => {
      if (state.serverClosed) return;
      state.serverClosed = true;
      if (!Number.isNaN(state.idleSince) && now() - state.idleSince <= SERVER_CLOSE_WINDOW_MS) this.observe(true);
      state.idleSince = NaN;
    };
    socket.once('end', serverClosed);
    socket.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') serverClosed();
    });
  }

  /** A response started on this connection: the previous one's connection was kept. */
  responseStarted(socket: Socket | null): void {
    const state = socket && this.connections.get(socket);
    if (!state) return;
    if (!Number.isNaN(state.idleSince)) this.observe(false);
    state.idleSince = NaN;
  }

  /** A response ended on this connection, and it did not say `Connection: close`. */
  responseEnded(socket: Socket | null, t: number): void {
    const state = socket && this.connections.get(socket);
    if (state && !state.serverClosed) state.idleSince = t;
  }

  facts(): KeepAliveFacts {
    const f: KeepAliveFacts = { disabled: this.off, responses_observed: this.observed, server_closed: this.closed };
    if (this.off) f.reason = KEEP_ALIVE_DISABLED_REASON;
    return f;
  }

  private observe(serverClosed: boolean): void {
    this.observed++;
    if (serverClosed) this.closed++;
    if (!this.off && shouldDisable(this.closed, this.observed)) this.off = true;
  }
}
