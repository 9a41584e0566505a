import { round3 } from '../numbers.js';
import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { now } from '../time.js';
import type { NetworkSection, RoundTrip, TwoQuantiles } from './types.js';

export interface ProbeOptions {
  /** The OpenAI base URL, e.g. http://127.0.0.1:8000/v1. */
  baseUrl: string;
  headers: Record<string, string>;
  /** Probes. */
  count: number;
  /** Probes sent first and not counted, while the server's handling of /models warms up. */
  warmup?: number;
  /** The warm-up stops once it has taken this long (ms): a slow /models is not what it is for. */
  warmupBudgetMs?: number;
  timeoutMs: number;
  /**
   * PEM certificates to trust over HTTPS instead of Node's default set (which, like the run's
   * own client, takes NODE_EXTRA_CA_CERTS); for a target with a private CA under test.
   */
  ca?: string;
}

interface ProbeTimes {
  connectMs: number;
  tlsMs: number | null;
  rttMs: number;
  status: number;
}

/**
 * Before the warmup, with nothing else in flight, `count` probes one after another, each on a
 * connection of its own: the TCP connect (SYN → connected), over HTTPS the TLS handshake
 * (connected → secure, reported apart), then one GET /models written on the open connection
 * and timed to the first byte of its answer — the request round trip, with no connect in it.
 * For /models the server's own time is close to nothing, so this is the network's share of
 * every TTFT (docs/methodology.md, "The service floor S": S = W_uncontended − t_RTT). Each probe asks `connection: close`, so
 * no kept-alive connection is left behind and a server that closes after each response (as
 * llama.cpp's does) is probed the same way. `warmup` probes go first and are not counted, for
 * as long as `warmupBudgetMs` allows.
 */
export async function probeNetwork(o: ProbeOptions): Promise<NetworkSection> {
  const url = new URL(o.baseUrl);
  const https = url.protocol === 'https:';
  const times: ProbeTimes[] = [];
  let note: string | undefined;
  const bad = Object.entries(o.headers).find(([k, v]) => /[\r\n]/.test(k) || /[\r\n]/.test(v));
  if (bad) note = `header ${bad[0]} holds a line break; not probed`;
  const warmUntil = now() + (o.warmupBudgetMs ?? Infinity);
  let warmed = 0;
  while (note === undefined && times.length < o.count) {
    const warming = warmed < (o.warmup ?? 0) && now() < warmUntil;
    try {
      const t = await probeOnce(url, o.headers, o.timeoutMs, o.ca);
      if (warming) warmed++;
      else times.push(t);
    } catch (e) {
      note = `probe failed: ${(e as Error).message}`;
    }
  }
  const status = times.find((t) => t.status < 200 || t.status >= 300)?.status;
  if (note === undefined && status !== undefined)
    note = `GET ${url.pathname.replace(/\/+$/, '')}/models answered HTTP ${status} (still a round trip)`;
  return {
    probes: times.length,
    ...(warmed > 0 ? { warmup_probes: warmed } : {}),
    connect_ms: twoQuantiles(times.map((t) => t.connectMs)),
    ...(https ? { tls_ms: twoQuantiles(times.flatMap((t) => (t.tlsMs === null ? [] : [t.tlsMs]))) } : {}),
    rtt_ms: roundTrips(times.map((t) => t.rttMs)),
    ...(note !== undefined ? { note } : {}),
  };
}

/** One connection: connect (and handshake), one request, the first byte back; then closed. */
function probeOnce(url: URL, headers: Record<string, string>, timeoutMs: number, ca: string | undefined): Promise<ProbeTimes> {
  const https = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (https ? 443 : 80));
  const path = `${url.pathname.replace(/\/+$/, '')}/models`;
  const head = [
    `GET ${path} HTTP/1.1`,
    `host: ${url.host}`,
    'accept: application/json',
    'connection: close',
    ...Object.entries(headers)
      .filter(([k]) => !/^(host|connection|content-length|transfer-encoding)$/i.test(k))
      .map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const t0 = now();
    let connected = NaN;
    let secure = NaN;
    let sent = NaN;
    let socket: Socket;
    const finish = (err: Error | null, value?: ProbeTimes) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(value!);
    };
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const send = () => {
      sent = now();
      socket.write(head);
    };
    if (https) {
      // SNI carries a host name only (RFC 6066): for an IP address none is sent, and the certificate
      // is checked against `host` itself — not the bracketed "[::1]" of url.hostname, which no IP SAN matches.
      const servername = isIP(host) === 0 ? { servername: host } : {};
      socket = tlsConnect({ host, port, ...servername, ...(ca !== undefined ? { ca } : {}) }, () => {
        secure = now();
        send();
      });
    } else socket = tcpConnect({ host, port, noDelay: true }, send);
    socket.once('connect', () => (connected = now()));
    socket.once('data', (chunk: Buffer) => {
      const t = now();
      const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(chunk.toString('latin1', 0, 16))?.[1] ?? 0);
      finish(null, { connectMs: connected - t0, tlsMs: https ? secure - connected : null, rttMs: t - sent, status });
    });
    socket.once('error', (e: NodeJS.ErrnoException) => finish(new Error(e.code ?? e.message)));
    socket.once('end', () => finish(new Error('the server closed the connection without answering')));
  });
}

/** p50 and p99 by nearest rank (with up to 100 probes, p99 is the slowest); null without samples. */
export function twoQuantiles(xs: number[]): TwoQuantiles | null {
  if (xs.length === 0) return null;
  const at = nearestRank(xs);
  return { p50: at(0.5), p99: at(0.99) };
}

/** The round trips' p10 besides: the delivery floor's (src/result/timestamp-error.ts, deliveryFloorMs). */
function roundTrips(xs: number[]): RoundTrip | null {
  if (xs.length === 0) return null;
  const at = nearestRank(xs);
  return { p10: at(0.1), p50: at(0.5), p99: at(0.99) };
}

function nearestRank(xs: number[]): (p: number) => number {
  const s = [...xs].sort((a, b) => a - b);
  return (p) => round3(s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]);
}
