/**
 * The network probe over HTTPS: the TLS handshake is reported apart from the
 * TCP connect and from the request round trip. And its warm-up probes, over plain HTTP. A self-signed certificate is made at test time
 * with openssl; the probe is called as src/run/server-watch.ts calls it, trusting that certificate.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { probeNetwork } from '../../src/server/network.js';
import { NETWORK_PROBES, NETWORK_WARMUP_PROBES } from '../../src/run/server-watch.js';
import { startDelayProxy, type DelayProxy } from '../fixtures/delay-proxy.js';
import { selfSignedCert } from '../fixtures/self-signed.js';

const TIMEOUT_MS = 5000;
let key: string;
let cert: string;
const servers: Server[] = [];
let proxy: DelayProxy | undefined;

beforeAll(() => {
  ({ key, cert } = selfSignedCert());
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

/** What the fixture saw: the GET /models requests and (over HTTPS) the completed handshakes with the SNI of each. */
interface Seen {
  models: number;
  other: number;
  handshakes: number;
  sni: (string | false | null)[];
}

const answer = (seen: Seen) => (req: IncomingMessage, res: ServerResponse) => {
  if (req.method === 'GET' && req.url === '/v1/models') {
    seen.models++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'test-model', object: 'model', owned_by: 'test' }] }));
  } else {
    seen.other++;
    res.writeHead(404).end();
  }
};

async function listen(server: Server, host: string): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, host, r));
  return (server.address() as AddressInfo).port;
}

async function httpsTarget(host: string): Promise<{ port: number; seen: Seen }> {
  const seen: Seen = { models: 0, other: 0, handshakes: 0, sni: [] };
  const server = createHttpsServer({ key, cert }, answer(seen));
  server.on('secureConnection', (s: TLSSocket) => {
    seen.handshakes++;
    seen.sni.push(s.servername);
  });
  return { port: await listen(server, host), seen };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

test('over HTTPS, each probe completes a verified TLS handshake, reported as tls_ms beside connect_ms and rtt_ms', async () => {
  const { port, seen } = await httpsTarget('127.0.0.1');
  const n = await probeNetwork({
    baseUrl: `https://127.0.0.1:${port}/v1`,
    headers: {},
    count: NETWORK_PROBES,
    timeoutMs: TIMEOUT_MS,
    ca: cert,
  });
  expect(n.note).toBeUndefined();
  expect(n.probes).toBe(NETWORK_PROBES);
  // One handshake and one GET /v1/models per probe, each on a connection of its own; no SNI for an IP address (RFC 6066).
  expect(seen).toEqual({ models: NETWORK_PROBES, other: 0, handshakes: NETWORK_PROBES, sni: Array(NETWORK_PROBES).fill(false) });
  for (const q of [n.connect_ms, n.tls_ms, n.rtt_ms]) {
    expect(q).toMatchObject({ p50: expect.any(Number) as number, p99: expect.any(Number) as number });
    expect(q!.p50).toBeGreaterThan(0);
    expect(q!.p99).toBeGreaterThanOrEqual(q!.p50);
  }
  // The round trip's p10 too, the delivery floor's: with 10 probes, the fastest.
  expect(n.rtt_ms!.p10).toBeGreaterThan(0);
  expect(n.rtt_ms!.p10).toBeLessThanOrEqual(n.rtt_ms!.p50);
  expect(Object.keys(n.connect_ms!)).toEqual(['p50', 'p99']);
});

test('over HTTPS to [::1], the certificate is checked against the IP address, not a bracketed name', async () => {
  const { port, seen } = await httpsTarget('::1');
  const n = await probeNetwork({ baseUrl: `https://[::1]:${port}/v1`, headers: {}, count: 3, timeoutMs: TIMEOUT_MS, ca: cert });
  expect(n.note).toBeUndefined();
  expect(seen).toEqual({ models: 3, other: 0, handshakes: 3, sni: [false, false, false] });
  expect(n.tls_ms!.p50).toBeGreaterThan(0);
});

test('over HTTPS to a host name, the name is sent as SNI and checked against the certificate', async () => {
  const { port, seen } = await httpsTarget('::'); // both stacks: localhost may resolve to ::1 or 127.0.0.1
  const n = await probeNetwork({ baseUrl: `https://localhost:${port}/v1`, headers: {}, count: 3, timeoutMs: TIMEOUT_MS, ca: cert });
  expect(n.note).toBeUndefined();
  expect(seen).toEqual({ models: 3, other: 0, handshakes: 3, sni: ['localhost', 'localhost', 'localhost'] });
  expect(n.tls_ms!.p50).toBeGreaterThan(0);
});

test('a certificate the probe does not trust is a note naming the TLS error, not figures', async () => {
  const { port, seen } = await httpsTarget('127.0.0.1');
  const n = await probeNetwork({ baseUrl: `https://127.0.0.1:${port}/v1`, headers: {}, count: NETWORK_PROBES, timeoutMs: TIMEOUT_MS });
  expect(n.probes).toBe(0);
  expect(n.note).toBe('probe failed: DEPTH_ZERO_SELF_SIGNED_CERT');
  expect(n.tls_ms).toBeNull();
  expect(seen.models).toBe(0);
});

test('across a proxy that delays every chunk each way, the handshake round trip is in tls_ms, not in connect_ms or rtt_ms', async () => {
  // Long enough that a busy machine's scheduling delays (a few ms per wake-up) stay far below one
  // round trip, so each figure is told apart by how many round trips it holds: none, one, or two.
  const ONE_WAY_MS = 40;
  const { port, seen } = await httpsTarget('127.0.0.1');
  proxy = await startDelayProxy({ host: '127.0.0.1', port }, ONE_WAY_MS);
  const via = new URL(proxy.origin);
  via.protocol = 'https:';
  const n = await probeNetwork({ baseUrl: `${via.origin}/v1`, headers: {}, count: NETWORK_PROBES, timeoutMs: TIMEOUT_MS, ca: cert });
  expect(n.note).toBeUndefined();
  expect(seen.handshakes).toBe(NETWORK_PROBES);
  expect(seen.models).toBe(NETWORK_PROBES);

  // What the proxy actually held each chunk, both ways: one injected round trip.
  const injected = mean(proxy.held.up) + mean(proxy.held.down);
  expect(injected).toBeGreaterThan(2 * (ONE_WAY_MS - 1));
  // The proxy accepts at once on loopback: the TCP connect is the local one, far from a round trip.
  expect(n.connect_ms!.p50).toBeLessThan(0.5 * injected);
  // TLS 1.3 needs the ClientHello up and the server's flight down before the client is secure: at least one round trip.
  expect(n.tls_ms!.p50).toBeGreaterThanOrEqual(0.85 * injected);
  // The request round trip is one round trip: the handshake's would make it two.
  expect(n.rtt_ms!.p50).toBeGreaterThanOrEqual(0.85 * injected);
  expect(n.rtt_ms!.p50).toBeLessThan(1.5 * injected);
});

test('over plain HTTP there is no TLS figure at all', async () => {
  const seen: Seen = { models: 0, other: 0, handshakes: 0, sni: [] };
  const port = await listen(createHttpServer(answer(seen)), '127.0.0.1');
  const n = await probeNetwork({ baseUrl: `http://127.0.0.1:${port}/v1`, headers: {}, count: NETWORK_PROBES, timeoutMs: TIMEOUT_MS });
  expect(n.note).toBeUndefined();
  expect(seen).toEqual({ models: NETWORK_PROBES, other: 0, handshakes: 0, sni: [] });
  expect(n.tls_ms).toBeUndefined();
  expect('tls_ms' in n).toBe(false);
  expect(n.connect_ms!.p50).toBeGreaterThan(0);
  expect(n.rtt_ms!.p50).toBeGreaterThan(0);
});

test('warm-up probes are sent first and not counted: a server slow on its first requests does not set the round trip', async () => {
  // The first NETWORK_WARMUP_PROBES answers are held 200 ms, as a server still compiling its path
  // is slow (far slower here, so the two cannot be confused); the rest answer at once.
  const seen: Seen = { models: 0, other: 0, handshakes: 0, sni: [] };
  const answerNow = answer(seen);
  const slowFirst = (req: IncomingMessage, res: ServerResponse) => {
    if (seen.models < NETWORK_WARMUP_PROBES) {
      seen.models++;
      setTimeout(() => res.end(JSON.stringify({ object: 'list', data: [] })), 200);
    } else answerNow(req, res);
  };
  const port = await listen(createHttpServer(slowFirst), '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const warmed = await probeNetwork({ baseUrl, headers: {}, count: NETWORK_PROBES, warmup: NETWORK_WARMUP_PROBES, timeoutMs: TIMEOUT_MS });
  expect(seen.models).toBe(NETWORK_WARMUP_PROBES + NETWORK_PROBES);
  expect([warmed.probes, warmed.warmup_probes]).toEqual([NETWORK_PROBES, NETWORK_WARMUP_PROBES]);
  expect(warmed.rtt_ms!.p99).toBeLessThan(200);
  // Without them the same server's first answers are the probes'.
  seen.models = 0;
  const cold = await probeNetwork({ baseUrl, headers: {}, count: NETWORK_PROBES, timeoutMs: TIMEOUT_MS });
  expect(cold.rtt_ms!.p50).toBeGreaterThanOrEqual(190); // a timer may fire a millisecond early by rounding
  expect('warmup_probes' in cold).toBe(false);
  // A /models that slow is not a server warming up: the warm-up stops at its time budget, and
  // the probes after it are counted as they come.
  seen.models = 0;
  const budgeted = await probeNetwork({
    baseUrl,
    headers: {},
    count: NETWORK_PROBES,
    warmup: NETWORK_WARMUP_PROBES,
    warmupBudgetMs: 300,
    timeoutMs: TIMEOUT_MS,
  });
  expect(budgeted.warmup_probes).toBeGreaterThanOrEqual(1);
  expect(budgeted.warmup_probes).toBeLessThanOrEqual(2);
  expect([budgeted.probes, seen.models]).toEqual([NETWORK_PROBES, NETWORK_PROBES + budgeted.warmup_probes!]);
  expect(budgeted.rtt_ms!.p50).toBeGreaterThanOrEqual(190);
}, 30_000);
