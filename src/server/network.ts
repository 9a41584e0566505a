import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Client } from 'undici';
import { now } from '../time.js';
import type { NetworkSection, TwoQuantiles } from './types.js';

export interface ProbeOptions {
  /** The OpenAI base URL, e.g. http://127.0.0.1:8000/v1. */
  baseUrl: string;
  headers: Record<string, string>;
  /** Probes of each kind. */
  count: number;
  timeoutMs: number;
}

/**
 * Before the warmup, with nothing else in flight: `count` TCP connects (SYN → connected), over
 * HTTPS as many TLS handshakes (connected → secure, reported apart), and `count` GET /models
 * on one already open connection, timed from the request to its response headers: the
 * request round trip, with no connect in it. For /models the server's own time is close to
 * nothing, so this is the network's share of every TTFT (seeds/003: S = W_uncontended − t_RTT).
 */
export async function probeNetwork(o: ProbeOptions): Promise<NetworkSection> {
  const url = new URL(o.baseUrl);
  const https = url.protocol === 'https:';
  const port = Number(url.port || (https ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const connects: number[] = [];
  const handshakes: number[] = [];
  const rtts: number[] = [];
  const notes: string[] = [];
  for (let i = 0; i < o.count; i++) {
    try {
      const [c, h] = await connectOnce(host, port, https ? url.hostname : null, o.timeoutMs);
      connects.push(c);
      if (h !== null) handshakes.push(h);
    } catch (e) {
      notes.push(`connect probe failed: ${(e as Error).message}`);
      break;
    }
  }
  const client = new Client(url.origin, { pipelining: 1, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs });
  const path = `${url.pathname.replace(/\/+$/, '')}/models`;
  try {
    // The first request opens the connection; it is not a round trip alone.
    for (let i = 0; i <= o.count; i++) {
      const t0 = now();
      const res = await client.request({ method: 'GET', path, headers: o.headers });
      const t1 = now();
      await res.body.dump();
      if (res.statusCode >= 300) {
        notes.push(`GET ${path} answered HTTP ${res.statusCode}`);
        break;
      }
      if (i > 0) rtts.push(t1 - t0);
    }
  } catch (e) {
    notes.push(`round-trip probe failed: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  } finally {
    await client.close().catch(() => undefined);
  }
  return {
    probes: o.count,
    connect_ms: twoQuantiles(connects),
    ...(https ? { tls_ms: twoQuantiles(handshakes) } : {}),
    rtt_ms: twoQuantiles(rtts),
    ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
  };
}

/** One connect (and handshake over TLS), ms each; the socket is closed at once. */
function connectOnce(host: string, port: number, servername: string | null, timeoutMs: number): Promise<[number, number | null]> {
  return new Promise((resolve, reject) => {
    const t0 = now();
    let connected = NaN;
    let socket: Socket;
    const done = (err: Error | null, value?: [number, number | null]) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(value!);
    };
    const timer = setTimeout(() => done(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
    if (servername === null) {
      socket = tcpConnect({ host, port, noDelay: true }, () => done(null, [now() - t0, null]));
    } else {
      socket = tlsConnect({ host, port, servername }, () => done(null, [connected - t0, now() - connected]));
      socket.once('connect', () => (connected = now()));
    }
    socket.once('error', (e: NodeJS.ErrnoException) => done(new Error(e.code ?? e.message)));
  });
}

/** p50 and p99 by nearest rank (with ~10 probes, p99 is the slowest); null without samples. */
export function twoQuantiles(xs: number[]): TwoQuantiles | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => Math.round(s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] * 1000) / 1000;
  return { p50: at(0.5), p99: at(0.99) };
}
