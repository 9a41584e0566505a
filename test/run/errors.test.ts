import { runBenchmark } from '../../src/run/run.js';
import { OUTCOMES } from '../../src/client/types.js';
import {
  errorResponse,
  openaiStream,
  sse,
  SSE_HEADERS,
  startScriptedServer,
  type Script,
  type ScriptedServer,
} from '../fixtures/scripted-server.js';
import { specFor } from './helpers.js';
import type { Result } from '../../src/result/types.js';

let server: ScriptedServer;
afterEach(() => server?.close());

const models: Script = { status: 200, steps: [{ send: '{"data":[]}' }, { end: true }] };
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

function expectAccounted(r: Result) {
  expect(sum(r.requests.by_class)).toBe(r.requests.scheduled);
  expect(sum(r.requests.window.by_class)).toBe(r.requests.window.scheduled);
}

test('each kind of failure lands in its own class and the counts add up', async () => {
  const ok = openaiStream({ ttftMs: 5, itlMs: 1, tokens: 5 });
  const chunk = sse({ choices: [{ index: 0, delta: { content: ' x' } }] });
  const scripts: Script[] = [
    ok,
    errorResponse(500, 'internal'),
    errorResponse(503, 'overloaded'),
    errorResponse(429, 'slow down'),
    errorResponse(400, 'bad request'),
    { status: 200, headers: SSE_HEADERS, steps: [{ send: chunk }, { wait: 5 }, { reset: true }] },
    { status: 200, headers: SSE_HEADERS, steps: [{ send: chunk }, { send: 'data: {"choices": [\n\n' }, { end: true }] },
    { status: 200, headers: SSE_HEADERS, steps: [{ send: chunk }, { end: true }] },
    { status: 200, headers: SSE_HEADERS, steps: [{ send: chunk }, { send: sse({ error: { message: 'engine died' } }) }, { end: true }] },
  ];
  let n = 0;
  server = await startScriptedServer((req) => (req.url.endsWith('/models') ? models : scripts[n++ % scripts.length]));
  const r = await runBenchmark({ resolved: specFor(server.baseUrl, 'rate: 90\narrival: constant\nwarmup: 0s\nsteady: 1s\ncooldown: 0s') });
  expectAccounted(r);
  const c = r.requests.by_class;
  expect(r.requests.scheduled).toBe(90);
  expect(c.ok).toBe(10);
  expect(c.http_5xx).toBe(20);
  expect(c.http_429).toBe(10);
  expect(c.http_4xx).toBe(10);
  expect(c.stream_error).toBe(40);
  expect(r.rates.http_5xx).toBeCloseTo(20 / 90, 3);
  expect(r.requests.error_samples.map((e) => e.class)).toEqual(
    expect.arrayContaining(['http_5xx', 'http_429', 'http_4xx', 'stream_error']),
  );
});

test('timeouts are classified, and the in-flight cap drops arrivals instead of queueing them', async () => {
  server = await startScriptedServer((req) =>
    req.url.endsWith('/models') ? models : { status: 200, headers: SSE_HEADERS, steps: [{ wait: 5000 }] },
  );
  const r = await runBenchmark({
    resolved: specFor(server.baseUrl, 'rate: 40\narrival: constant\nwarmup: 0s\nsteady: 500ms\ncooldown: 0s\nmax_in_flight: 5', '', {
      requestTimeout: '200ms',
    }),
  });
  expectAccounted(r);
  const c = r.requests.by_class;
  expect(r.requests.scheduled).toBe(19);
  expect(c.timeout).toBeGreaterThanOrEqual(5);
  expect(c.dropped).toBeGreaterThanOrEqual(5);
  expect(c.timeout + c.dropped).toBe(19);
  expect(r.requests.error_samples.find((e) => e.class === 'dropped')?.detail).toBe('in-flight cap of 5 reached');
  expect(r.metrics.ttft_ms).toBeNull();
});

test('an unreachable target is an operational error naming the URL, not a result', async () => {
  await expect(
    runBenchmark({ resolved: specFor('http://127.0.0.1:9/v1', 'rate: 1\nsteady: 1s', '', { readyTimeout: '300ms' }) }),
  ).rejects.toThrow(
    /^target http:\/\/127\.0\.0\.1:9\/v1\/models was not ready within 0\.3s \(last: ECONNREFUSED\); check the URL or raise target\.ready_timeout$/,
  );
});

test('an interrupted run still returns a result with every arrival accounted for', async () => {
  server = await startScriptedServer((req) => (req.url.endsWith('/models') ? models : openaiStream({ ttftMs: 50, itlMs: 20, tokens: 20 })));
  const abort = new AbortController();
  setTimeout(() => abort.abort(), 800);
  const r = await runBenchmark({
    resolved: specFor(server.baseUrl, 'rate: 50\narrival: constant\nwarmup: 0s\nsteady: 3s\ncooldown: 0s'),
    signal: abort.signal,
  });
  expectAccounted(r);
  expect(r.load.interrupted).toBe(true);
  expect(r.validity.valid).toBe(false);
  expect(r.requests.scheduled + r.requests.not_reached).toBe(149);
  expect(r.requests.by_class.timeout).toBeGreaterThan(0); // cancelled in flight
  expect(r.requests.by_class.ok).toBeGreaterThan(10);
  expect(r.load.window_s).toBeLessThan(1);
  expect(OUTCOMES.every((o) => typeof r.requests.by_class[o] === 'number')).toBe(true);
});

test('raw records: one JSON line per scheduled request, joined to the server by x-request-id', async () => {
  const seenIds: string[] = [];
  server = await startScriptedServer((req) => {
    if (req.url.endsWith('/models')) return models;
    seenIds.push(String(req.headers['x-request-id']));
    return openaiStream({ ttftMs: 5, itlMs: 1, tokens: 4 });
  });
  const lines: string[] = [];
  const r = await runBenchmark({
    resolved: specFor(server.baseUrl, 'rate: 30\narrival: constant\nwarmup: 0s\nsteady: 1s\ncooldown: 0s\nmax_in_flight: 1000'),
    onRecordLine: (l) => lines.push(l),
  });
  const records = lines.map((l) => JSON.parse(l));
  expect(records).toHaveLength(r.requests.scheduled);
  expect(new Set(records.map((x) => x.request_id))).toEqual(new Set(seenIds));
  expect(records.every((x) => x.request_id.startsWith(`${r.run_id}-`))).toBe(true);
  const ok = records.find((x) => x.outcome === 'ok');
  expect(ok.t_first - ok.t_sched).toBeGreaterThan(4);
  expect(ok.output_tokens).toBe(4);
});
