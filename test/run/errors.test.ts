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
import { now } from '../../src/time.js';
import { maxOf } from '../../src/numbers.js';

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
    { status: 200, headers: { 'content-type': 'text/html' }, steps: [{ send: '<html><body>Sign in</body></html>' }, { end: true }] },
  ];
  let n = 0;
  server = await startScriptedServer((req) => (req.url.endsWith('/models') ? models : scripts[n++ % scripts.length]));
  const r = await runBenchmark({
    resolved: specFor(server.baseUrl, 'rate: 100\narrival: constant\nwarmup: 0s\nsteady: 1001ms\ncooldown: 0s'),
  });
  expectAccounted(r);
  const c = r.requests.by_class;
  expect(r.requests.scheduled).toBe(100);
  expect(c.ok).toBe(10);
  expect(c.http_5xx).toBe(20);
  expect(c.http_429).toBe(10);
  expect(c.http_4xx).toBe(10);
  expect(c.stream_error).toBe(50);
  expect(r.rates.http_5xx).toBeCloseTo(20 / 100, 3);
  expect(r.requests.error_samples.map((e) => e.class)).toEqual(
    expect.arrayContaining(['http_5xx', 'http_429', 'http_4xx', 'stream_error']),
  );
  const details = r.requests.error_samples.map((e) => e.detail);
  expect(details).toContain('expected text/event-stream, got text/html');
  expect(details).toContain('stream ended without [DONE]');
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
  // In flight when the run stopped: cancelled, not timed out (the timeout is 10 s), and not errors.
  expect(r.requests.by_class.cancelled).toBeGreaterThan(0);
  expect(r.requests.by_class.timeout).toBe(0);
  expect(r.requests.error_samples.find((e) => e.class === 'cancelled')?.detail).toBe('the run was interrupted');
  expect(r.rates.errors).toBe(0);
  // Requests the server finished streaming before the interrupt count as ok; how many that is
  // depends on the machine's pace, so the bound is the fixture's own record of whole streams.
  const steps = maxOf(server.timings.map((t) => t.sentAt.length));
  const whole = server.timings.filter((t) => t.sentAt.length === steps).length;
  expect(r.requests.by_class.ok).toBeGreaterThan(0);
  expect(r.requests.by_class.ok).toBeLessThanOrEqual(whole);
  expect(r.load.window_s).toBeLessThan(1);
  expect(OUTCOMES.every((o) => typeof r.requests.by_class[o] === 'number')).toBe(true);
});

test('raw records of a two-thread run: ids unique across the threads', async () => {
  server = await startScriptedServer((req) => (req.url.endsWith('/models') ? models : openaiStream({ ttftMs: 5, itlMs: 1, tokens: 4 })));
  const lines: string[] = [];
  const r = await runBenchmark({
    resolved: specFor(server.baseUrl, 'rate: 40\narrival: constant\nwarmup: 0s\nsteady: 1s\ncooldown: 0s'),
    workers: 2,
    onRecordLine: (l) => lines.push(l),
  });
  const records = lines.map((l) => JSON.parse(l) as { id: string; request_id: string });
  expect(records).toHaveLength(r.requests.scheduled);
  expect(new Set(records.map((x) => x.id)).size).toBe(records.length);
  expect(new Set(records.map((x) => x.id.split('-')[0]))).toEqual(new Set(['0', '1']));
  // The thread in the id is the one in the request id (…w<thread>-<index>).
  expect(records.every((x) => x.request_id.endsWith(`w${x.id}`))).toBe(true);
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
  expect(records.every((x) => x.request_id === `${r.run_id}-${x.id.replace(/^0-/, '')}`)).toBe(true);
  const ok = records.find((x) => x.outcome === 'ok');
  expect(ok.t_first - ok.t_sched).toBeGreaterThan(4);
  expect(ok.output_tokens).toBe(4);
});

describe('fault matrix: each fault lands in its class, and the classes add up to the schedule', () => {
  interface RecordLine {
    outcome: string;
    t_sched: number;
    t_send: number;
    t_end: number;
    detail?: string;
  }
  const recordsOf = (lines: string[]) => lines.map((l) => JSON.parse(l) as RecordLine);

  test('slowloris (headers, then nothing): timeouts, each ended by the request timeout', async () => {
    server = await startScriptedServer((req) => (req.url.endsWith('/models') ? models : { status: 200, headers: SSE_HEADERS, steps: [] }));
    const lines: string[] = [];
    const r = await runBenchmark({
      resolved: specFor(server.baseUrl, 'rate: 20\narrival: constant\nwarmup: 0s\nsteady: 500ms\ncooldown: 0s', '', {
        requestTimeout: '300ms',
      }),
      onRecordLine: (l) => lines.push(l),
    });
    expectAccounted(r);
    expect(r.requests.by_class.timeout).toBe(r.requests.scheduled);
    for (const x of recordsOf(lines)) {
      expect(x.detail).toBe('stream not finished within 300 ms');
      expect(x.t_end - x.t_send).toBeGreaterThanOrEqual(299);
      expect(x.t_end - x.t_send).toBeLessThan(800); // generous: CPU contention from other test workers
    }
  });

  test('a stall mid-stream: shorter than the timeout it is ok and shows in ITL; longer, a timeout', async () => {
    let n = 0;
    const stalled = (ms: number): Script => {
      const s = openaiStream({ ttftMs: 2, itlMs: 1, tokens: 6 });
      const steps = s.steps!;
      const mid = steps.findIndex((step, i) => i > 4 && 'send' in step); // after a few tokens
      return { ...s, steps: [...steps.slice(0, mid), { wait: ms }, ...steps.slice(mid)] };
    };
    server = await startScriptedServer((req) => (req.url.endsWith('/models') ? models : n++ % 2 === 0 ? stalled(120) : stalled(2_000)));
    const r = await runBenchmark({
      // Constant arrivals come at 1/rate, 2/rate, …: 10 of them up to 500 ms.
      resolved: specFor(server.baseUrl, 'rate: 20\narrival: constant\nwarmup: 0s\nsteady: 501ms\ncooldown: 0s', '', {
        requestTimeout: '500ms',
      }),
    });
    expectAccounted(r);
    expect(r.requests.scheduled).toBe(10);
    expect(r.requests.by_class.ok).toBe(5);
    expect(r.requests.by_class.timeout).toBe(5);
    expect(r.metrics.itl_ms!.max).toBeGreaterThanOrEqual(110); // the 120 ms gap, less read batching
    expect(r.requests.error_samples).toEqual([{ class: 'timeout', detail: 'stream not finished within 500 ms', count: 5 }]);
  });

  test('429 with Retry-After: http_429, not retried, the Retry-After in the detail', async () => {
    const shed: Script = {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '2' },
      steps: [{ send: JSON.stringify({ error: { message: 'the waiting queue is full' } }) }, { end: true }],
    };
    let completions = 0;
    server = await startScriptedServer((req) => {
      if (req.url.endsWith('/models')) return models;
      return completions++ % 2 === 0 ? shed : openaiStream({ ttftMs: 2, itlMs: 1, tokens: 4 });
    });
    const r = await runBenchmark({
      resolved: specFor(server.baseUrl, 'rate: 40\narrival: constant\nwarmup: 0s\nsteady: 501ms\ncooldown: 0s'),
    });
    expectAccounted(r);
    expect(r.requests.scheduled).toBe(20);
    expect(completions).toBe(20); // an open-loop load does not retry a 429: that would change the offered load
    expect(r.requests.by_class.http_429).toBe(10);
    expect(r.requests.by_class.ok).toBe(10);
    expect(r.rates.http_429).toBe(0.5);
    expect(r.requests.error_samples).toEqual([
      { class: 'http_429', detail: 'HTTP 429: the waiting queue is full (Retry-After: 2)', count: 10 },
    ]);
  });

  test('a server that crashes and restarts mid-run: failures while it is down, ok again after, every arrival accounted for', async () => {
    server = await startScriptedServer((req) => (req.url.endsWith('/models') ? models : openaiStream({ ttftMs: 5, itlMs: 5, tokens: 8 })));
    const lines: string[] = [];
    let crashAt = NaN;
    let upAt = NaN;
    const crash = (async () => {
      await new Promise((r) => setTimeout(r, 900)); // the run starts ≈ 100 ms in (readiness, lead time)
      crashAt = now();
      await server.restart(400);
      upAt = now();
    })();
    const r = await runBenchmark({
      resolved: specFor(server.baseUrl, 'rate: 40\narrival: constant\nwarmup: 0s\nsteady: 2s\ncooldown: 0s', '', { requestTimeout: '2s' }),
      onRecordLine: (l) => lines.push(l),
    });
    await crash;
    expectAccounted(r);
    const records = recordsOf(lines);
    expect(records).toHaveLength(r.requests.scheduled);
    const c = r.requests.by_class;
    // Requests sent while the server was down were refused: connect errors. (By the send, not by
    // the intended time: on a busy runner one due just before the restart can go out after it.)
    const down = records.filter((x) => x.t_send > crashAt + 5 && x.t_send < upAt - 5);
    expect(down.length).toBeGreaterThanOrEqual(10);
    const refused = (x: RecordLine) => x.outcome === 'connect_error' && /ECONNREFUSED/.test(x.detail ?? '');
    expect(down.filter((x) => !refused(x)).map((x) => ({ ...x, t_sched: x.t_sched - crashAt, t_send: x.t_send - crashAt }))).toEqual([]);
    // Those in flight at the crash were cut: mid-stream (stream_error) or before their response (connect_error).
    const cut = records.filter((x) => x.t_send < crashAt && x.t_end >= crashAt);
    expect(cut.every((x) => x.outcome === 'stream_error' || x.outcome === 'connect_error' || x.outcome === 'ok')).toBe(true);
    // Before the crash and once it is back (allowing for the last cut streams), everything is ok.
    expect(records.filter((x) => x.t_end < crashAt).every((x) => x.outcome === 'ok')).toBe(true);
    const after = records.filter((x) => x.t_sched > upAt + 20);
    expect(after.length).toBeGreaterThanOrEqual(10);
    expect(after.every((x) => x.outcome === 'ok')).toBe(true);
    expect(c.timeout).toBe(0);
    expect(c.ok + c.connect_error + c.stream_error).toBe(r.requests.scheduled);
  });
});

describe('at readiness: a wrong model, Ctrl-C, the wall-clock bound', () => {
  const listing = (ids: string[]): Script => ({
    status: 200,
    steps: [{ send: JSON.stringify({ data: ids.map((id) => ({ id })) }) }, { end: true }],
  });

  test('a model the server does not list fails before any completion request, naming what it lists', async () => {
    let completions = 0;
    server = await startScriptedServer((req) => {
      if (req.url.endsWith('/models')) return listing(['test-modle', 'other']);
      completions++;
      return openaiStream({ tokens: 2 });
    });
    await expect(runBenchmark({ resolved: specFor(server.baseUrl, 'rate: 10\nsteady: 1s') })).rejects.toThrow(
      `target.model "test-model" is not served by ${server.baseUrl} (it lists "test-modle", "other"); did you mean "test-modle"?`,
    );
    expect(completions).toBe(0);
  });

  test('a 401 or 403 at readiness is final: no retrying for the whole ready_timeout', async () => {
    for (const status of [401, 403]) {
      server = await startScriptedServer(() => errorResponse(status, 'no'));
      const t0 = Date.now();
      await expect(
        runBenchmark({ resolved: specFor(server.baseUrl, 'rate: 10\nsteady: 1s', '', { readyTimeout: '30s' }) }),
      ).rejects.toThrow(
        `the server requires an API key (HTTP ${status}) at ${server.baseUrl}/models; expected target.api_key_env naming the variable that holds it`,
      );
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(server.requests).toBe(1);
      await server.close();
    }
  });

  test('a /models that sends headers and then nothing (slowloris) cannot stretch the wait past ready_timeout', async () => {
    server = await startScriptedServer(() => ({ status: 200, steps: [{ send: '{"data": [' }] }));
    const t0 = Date.now();
    await expect(
      runBenchmark({ resolved: specFor(server.baseUrl, 'rate: 10\nsteady: 1s', '', { readyTimeout: '800ms' }) }),
    ).rejects.toThrow(/was not ready within 0\.8s \(last: no answer within \d+ ms\)/);
    expect(Date.now() - t0).toBeLessThan(2500);
  });

  test('aborted during the readiness wait: a result at once, nothing sent, the whole schedule not reached', async () => {
    server = await startScriptedServer(() => errorResponse(503, 'loading'));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const t0 = Date.now();
    const r = await runBenchmark({
      resolved: specFor(server.baseUrl, 'rate: 50\narrival: constant\nwarmup: 0s\nsteady: 2s\ncooldown: 0s', '', { readyTimeout: '60s' }),
      signal: abort.signal,
    });
    expect(Date.now() - t0).toBeLessThan(1500);
    expectAccounted(r);
    expect(r.load.interrupted).toBe(true);
    expect(r.requests.scheduled).toBe(0);
    expect(r.requests.not_reached).toBe(99);
    expect(r.validity.valid).toBe(false);
  });
});
