import { runBenchmark } from '../../src/run/run.js';
import { renderConsoleReport } from '../../src/report/console.js';
import { compare } from '../../src/gate/compare.js';
import { gateOf } from '../../src/spec/gate-schema.js';
import { openaiStream, startScriptedServer, type ScriptedServer } from '../fixtures/scripted-server.js';
import { specFor, ttftShareAtOrBelow } from './helpers.js';

let server: ScriptedServer;
afterEach(() => server?.close());

/** GET /models answers readiness probes; everything else is the scripted completion. */
const withModels = (script: ReturnType<typeof openaiStream>) => (req: { url: string }) =>
  req.url.endsWith('/models') ? { status: 200, steps: [{ send: '{"data":[]}' }, { end: true as const }] } : script;

test('TTFT, TPOT and E2E match a server with known timing (200 ms, then 50 tokens 10 ms apart)', async () => {
  server = await startScriptedServer(withModels(openaiStream({ ttftMs: 200, itlMs: 10, tokens: 50 })));
  const result = await runBenchmark({ resolved: specFor(server.baseUrl, 'rate: 20\nwarmup: 300ms\nsteady: 2s\ncooldown: 0s') });
  const m = result.metrics;
  expect(result.requests.window.by_class.ok).toBe(result.requests.window.scheduled);
  expect(result.requests.window.scheduled).toBeGreaterThan(20);
  expect(Math.abs(m.ttft_ms!.p50 - 200)).toBeLessThan(2);
  expect(Math.abs(m.tpot_ms!.p50 - 10)).toBeLessThan(0.5);
  expect(Math.abs(m.e2e_ms!.p50 - 690)).toBeLessThan(3);
  expect(Math.abs(m.itl_ms!.p50 - 10)).toBeLessThan(0.5);
  expect(m.itl_ms!.count).toBe(49 * result.requests.window.by_class.ok);
  expect(result.workload.token_source).toBe('usage');
  expect(result.workload.output_tokens.delivered!.p50).toBe(50);
});

/**
 * Coordinated omission: the server stalls for 1 s. Open loop keeps sending at 50 req/s, so
 * the ~50 requests that arrive during the stall carry their queueing time in TTFT. Closed
 * loop stops sending while its few requests wait, so the stall nearly vanishes from its numbers.
 */
describe('a 1 s server stall', () => {
  const stallStart = 1500;
  const stallMs = 1000;
  async function stalled() {
    let t0 = NaN;
    return startScriptedServer((req) => {
      if (req.url.endsWith('/models')) return { status: 200, steps: [{ send: '{"data":[]}' }, { end: true }] };
      if (Number.isNaN(t0)) t0 = performance.now();
      const since = performance.now() - t0;
      const shape = openaiStream({ ttftMs: 10, itlMs: 2, tokens: 5 });
      // Everything that arrives during the stall is held until it ends.
      if (since >= stallStart && since < stallStart + stallMs) shape.headersDelayMs = stallStart + stallMs - since;
      return shape;
    });
  }

  test('open loop shows the requests that arrived during the stall with their queueing time', async () => {
    server = await stalled();
    const result = await runBenchmark({
      resolved: specFor(server.baseUrl, 'rate: 50\nwarmup: 0s\nsteady: 4s\ncooldown: 0s\narrival: constant'),
    });
    const ttft = result.metrics.ttft_ms!;
    expect(ttft.max).toBeGreaterThan(900);
    // 50 req/s × 1 s stall: about 50 requests waited; the median request did not.
    const slow = Math.round((1 - ttftShareAtOrBelow(result, 100)) * ttft.count);
    expect(slow).toBeGreaterThanOrEqual(40);
    expect(slow).toBeLessThanOrEqual(60);
    expect(ttft.p50).toBeLessThan(50);
    expect(ttft.p90).toBeGreaterThan(100);
    expect(result.load.label).toMatch(/^open-loop/);
  });

  test('closed loop hides the stall and says closed-loop everywhere', async () => {
    server = await stalled();
    const result = await runBenchmark({
      resolved: specFor(server.baseUrl, 'mode: closed\nconcurrency: 2\nwarmup: 0s\nsteady: 4s\ncooldown: 0s'),
    });
    const slow = Math.round((1 - ttftShareAtOrBelow(result, 100)) * result.metrics.ttft_ms!.count);
    expect(slow).toBeLessThanOrEqual(2);
    expect(result.load.mode).toBe('closed');
    expect(result.load.label).toMatch(/^closed-loop, 2 concurrent/);
    expect(renderConsoleReport(result, compare(null, result, gateOf(result.spec)))).toContain('closed-loop');
  });
});
