import { LOOPBACK_NETWORK_PROBES } from '../../src/run/server-watch.js';
import { runBenchmark } from '../../src/run/run.js';
import { openaiStream, startScriptedServer, type ScriptedServer } from '../fixtures/scripted-server.js';
import { specFor } from './helpers.js';

let server: ScriptedServer;
afterEach(() => server?.close());

test('two generator threads split the arrivals and merge into one run, each thread watching itself', async () => {
  const script = openaiStream({ ttftMs: 50, itlMs: 5, tokens: 10 });
  server = await startScriptedServer((req) =>
    req.url.endsWith('/models') ? { status: 200, steps: [{ send: '{"data":[]}' }, { end: true }] } : script,
  );
  const lines: string[] = [];
  const result = await runBenchmark({
    resolved: specFor(server.baseUrl, 'rate: 40\nwarmup: 300ms\nsteady: 2s\ncooldown: 0s'),
    workers: 2,
    onRecordLine: (l) => lines.push(l),
  });

  expect(result.environment.workers).toBe(2);
  expect(result.load.label).toContain('2 generator threads');
  // Every arrival of both threads is accounted for, reached the server, and is one raw record.
  const records = lines.map((l) => JSON.parse(l) as { request_id: string; outcome: string });
  expect(records).toHaveLength(result.requests.scheduled);
  expect(server.requests - 1 - (result.network!.warmup_probes ?? 0) - LOOPBACK_NETWORK_PROBES).toBe(result.requests.scheduled); // less the readiness probe and the network probes' GET /models (a loopback target: warm-up probes too)
  const threads = new Set(records.map((r) => /w(\d)-\d+$/.exec(r.request_id)![1]));
  expect([...threads].sort()).toEqual(['0', '1']);
  expect(result.requests.window.by_class.ok).toBe(result.requests.window.scheduled);
  expect(result.requests.window.scheduled).toBeGreaterThan(40);
  // TTFT as the client measured it beside the scripted server's own first write (it shares this
  // busy process, so not its nominal 50 ms), request by request.
  const truth = new Map(server.timings.map((t) => [t.id, t]));
  const ttftErrors = lines
    .map((l) => JSON.parse(l) as { request_id: string; in_window: boolean; t_sched: number; t_first: number })
    .filter((r) => r.in_window)
    .map((r) => Math.abs(r.t_first - truth.get(r.request_id)!.sentAt[1]))
    .sort((a, b) => a - b);
  expect(ttftErrors[Math.ceil(ttftErrors.length / 2) - 1]).toBeLessThan(5);
  // Each thread bounds its own timestamps; the run's bound is recomputed over both threads' loops.
  expect(result.generator.timestamp_error_ms!.observed_s).toBeGreaterThan(2 * 2);
  const te = result.generator.timestamp_error_ms!;
  expect(te.chunk!.p99).toBeGreaterThanOrEqual(te.chunk!.p50);
  expect(te.max).toBeGreaterThanOrEqual(Math.max(te.p99, te.chunk!.p99));

  // The busiest thread's CPU and the pool wait of both threads' requests, judged like one thread's.
  expect(result.generator.window_cpu!.busy).toBeGreaterThanOrEqual(0);
  expect(result.generator.window_cpu!.busy).toBeLessThan(0.8);
  expect(result.generator.pool_wait_ms!.p99).toBeGreaterThan(0);
  const names = result.validity.checks.map((c) => c.name);
  expect(names).toEqual(expect.arrayContaining(['schedule_lag', 'event_loop_delay', 'generator_cpu', 'pool_wait', 'merge_inputs']));
});
