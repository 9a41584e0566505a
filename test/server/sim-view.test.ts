import { runBenchmark } from '../../src/run/run.js';
import { runReplicatesMerged } from '../../src/run/replicates.js';
import { parseSpec } from '../../src/spec/load.js';
import { launchSim, type SimHandle } from '../../src/sim/launch.js';
import type { GroundTruth } from '../../src/sim/ground-truth.js';
import { Scraper } from '../../src/server/scraper.js';
import { parseResult } from '../../src/result/load.js';
import { renderConsoleReport } from '../../src/report/console.js';
import { compare } from '../../src/gate/compare.js';
import { gateOf } from '../../src/spec/gate-schema.js';
import { startScriptedServer, openaiStream, type ScriptedServer } from '../fixtures/scripted-server.js';

/** A small engine that queues at moderate rates: 4 slots, saturating near 21 req/s for 16-in/30-out requests. */
const SIM = { max_num_seqs: 4, kv_cache_tokens: 1024, max_model_len: 1024, block_size: 16, enable_prefix_caching: false, seed: 7 };

const spec = (url: string, rate: number, extraTarget = '') =>
  parseSpec(
    `name: server-view
target:
  url: ${url}
  model: sim-8b
  metrics_interval: 100ms
${extraTarget}
workload:
  seed: 3
  calibrate: off
  input_tokens: 16
  output_tokens: 30
load:
  rate: ${rate}
  warmup: 1s
  steady: 4s
  cooldown: 0s
`,
    'test.yml',
    {},
  );

let sim: SimHandle | undefined;
let scripted: ScriptedServer | undefined;
afterEach(async () => {
  await sim?.stop();
  await scripted?.close();
  sim = scripted = undefined;
});

/**
 * The engine's state at instant t from the sim's own record of every request, as a range.
 * The record's `admitted` is the ideal start of the step that took the request; when the sim
 * wakes late (a busy machine), its batch actually changes at the wake, later. The first token's
 * write comes after that wake, so between `admitted` and it the gauges may count the request
 * either as waiting or as running: both ends of the range are the truth.
 */
function truthAt(records: GroundTruth[], t: number, blockSize: number, totalBlocks: number) {
  const lo = { waiting: 0, running: 0, kv: 0 };
  const hi = { waiting: 0, running: 0, kv: 0 };
  for (const r of records) {
    const released = r.last_token ?? r.ended ?? Infinity;
    const blocks = Math.ceil((r.prompt_tokens + r.output_tokens) / blockSize) / totalBlocks;
    const taken = r.first_token ?? r.ended ?? Infinity; // the batch has surely taken it by then
    if (r.received <= t && (r.admitted === null ? (r.ended ?? Infinity) > t : r.admitted > t)) {
      lo.waiting++;
      hi.waiting++;
    } else if (r.admitted !== null && r.admitted <= t && released > t) {
      hi.running++;
      hi.kv += blocks;
      if (t < taken) hi.waiting++;
      else {
        lo.running++;
        lo.kv += blocks;
      }
    }
  }
  // strict: the records' instants taken as they stand (admitted at `admitted`).
  return { lo, hi, strict: { waiting: lo.waiting, running: hi.running, kv: hi.kv } };
}

test('scraped queue depth, running batch and KV use agree with the simulator ground truth over the window', async () => {
  sim = await launchSim(SIM);
  const resolved = spec(sim.baseUrl, 18);
  // A second scraper beside the run's own, whose scrape instants the test can see.
  const watcher = new Scraper({ url: `${sim.origin}/metrics`, headers: {}, intervalMs: 50 });
  watcher.start();
  const result = await runBenchmark({ resolved });
  await watcher.stop();
  const records = (await (await fetch(`${sim.origin}/sim/requests`)).json()) as GroundTruth[];
  expect(records.every((r) => r.cached_tokens === 0)).toBe(true);
  const totalBlocks = Math.floor(SIM.kv_cache_tokens / SIM.block_size);

  // Window bounds as the run had them: the client's first request was sent at runStart + its offset.
  const s = result.server!;
  expect(s.available).toBe(true);
  expect(s.engine).toBe('vllm');
  expect(s.scrapes).toBeGreaterThanOrEqual(30);
  expect(() => parseResult(JSON.stringify(result), 'result')).not.toThrow();

  // At each of the watcher's scrapes the gauges equal the state the records give for that instant
  // (a request may change state while the scrape is on the wire: a few scrapes may differ by one).
  const snaps = watcher.snapshots.filter((x) => x.t > records[0].received + 1000);
  expect(snaps.length).toBeGreaterThan(50);
  let off = 0;
  let sumTruthWaiting = 0;
  let sumScrapedWaiting = 0;
  const transitions = records.flatMap((r) => [r.received, r.admitted, r.last_token, r.ended]).filter((t): t is number => t !== null);
  for (const x of snaps) {
    // The server read its gauges somewhere between the scrape's send and its answer: the truth over that span.
    const instants = [x.sent, x.t, ...transitions.filter((t) => t > x.sent && t < x.t).flatMap((t) => [t - 1e-3, t + 1e-3])];
    const truths = instants.map((t) => truthAt(records, t, SIM.block_size, totalBlocks));
    // Exact: within the records' own instants; in range: within what a late wake may show.
    const inSpan = (low: 'lo' | 'strict', high: 'hi' | 'strict') => (k: 'waiting' | 'running' | 'kv', v: number, slack: number) =>
      v >= Math.min(...truths.map((u) => u[low][k])) - slack && v <= Math.max(...truths.map((u) => u[high][k])) + slack;
    const exactly = inSpan('strict', 'strict');
    const within = inSpan('lo', 'hi');
    const exact =
      exactly('waiting', x.gauges.waiting!, 0) && exactly('running', x.gauges.running!, 0) && exactly('kv', x.gauges.kv_cache_usage!, 1e-9);
    if (!exact) off++;
    expect(within('waiting', x.gauges.waiting!, 1) && within('running', x.gauges.running!, 1)).toBe(true);
    expect(within('kv', x.gauges.kv_cache_usage!, 3 / totalBlocks + 1e-9)).toBe(true);
    sumTruthWaiting += truths[0].strict.waiting;
    sumScrapedWaiting += x.gauges.waiting!;
  }
  expect(off / snaps.length).toBeLessThan(0.2);
  expect(sumTruthWaiting).toBeGreaterThan(0); // the load did queue
  expect(Math.abs(sumScrapedWaiting - sumTruthWaiting) / snaps.length).toBeLessThan(0.2);

  // The run's own summary over its window: the time average of the truth, within the sampling of 100 ms scrapes.
  const first = Math.min(...records.map((r) => r.received));
  const grid = Array.from({ length: 400 }, (_, i) => first + 1000 + i * 10);
  const avg = (k: 'waiting' | 'running' | 'kv') =>
    grid.reduce((a, t) => a + truthAt(records, t, SIM.block_size, totalBlocks).strict[k], 0) / grid.length;
  expect(Math.abs(s.summary.running!.mean - avg('running'))).toBeLessThan(0.15 * avg('running') + 0.3);
  expect(Math.abs(s.summary.waiting!.mean - avg('waiting'))).toBeLessThan(0.35 * avg('waiting') + 0.5);
  expect(Math.abs(s.summary.kv_cache_usage!.mean - avg('kv'))).toBeLessThan(0.15 * avg('kv') + 0.01);
  expect(s.summary.kv_cache_usage!.max).toBeLessThanOrEqual((SIM.max_num_seqs * 3) / totalBlocks + 0.0005); // summaries keep 3 decimals
  // The per-second series is aligned with the client's.
  expect(s.timeseries.interval_s).toBe(result.timeseries.interval_s);
  const ts = result.timeseries;
  expect(s.timeseries.running.length).toBe(Math.max(ts.sent.length, ts.ok.length, ts.errors.length));
});

test("the server's TTFT quantiles from its histogram agree with the client's within the network share", async () => {
  sim = await launchSim(SIM);
  const result = await runBenchmark({ resolved: spec(sim.baseUrl, 10) });
  const client = result.metrics.ttft_ms!;
  const server = result.server!.ttft_ms!;
  const net = result.network!;
  expect(net.rtt_ms!.p50).toBeGreaterThan(0);
  expect(server.count).toBeGreaterThan(20);
  // vLLM's TTFT buckets around these values: …, 0.01, 0.02, 0.04, 0.06, …  s; a quantile read from them is within its bucket's width.
  const bounds = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5].map((b) => b * 1000);
  const width = (v: number) => {
    const i = bounds.findIndex((b) => b >= v);
    return i <= 0 ? bounds[0] : bounds[i] - bounds[i - 1];
  };
  for (const p of ['p50', 'p95'] as const) {
    const gap = client[p] - server[p];
    // The client's TTFT holds the server's plus the network and the client; the bucket blurs the server's.
    expect(gap).toBeGreaterThan(-width(server[p]));
    // The client's own share is what it measured of itself: lateness of the send, pool wait, event-loop delay.
    const clientShare =
      (result.metrics.schedule_lag_ms?.p99 ?? 0) + (result.generator.pool_wait_ms?.p99 ?? 0) + result.generator.event_loop_delay_ms.p99;
    expect(gap).toBeLessThan(width(server[p]) + net.rtt_ms!.p99 + clientShare + 1);
  }
  const text = renderConsoleReport(result, compare(null, result, gateOf(result.spec)));
  expect(text).toMatch(/TTFT p50 \/ p95 \/ p99: client .* · server .* — the difference is network \+ front end \+ client/);
  expect(text).toMatch(/Server {6}vllm http:\/\/127\.0\.0\.1:\d+\/metrics, \d+ scrapes in the window: running mean/);
});

test("replicates merge their server views: every replicate's scrapes and first tokens, quantiles from the added buckets", async () => {
  sim = await launchSim(SIM);
  const resolved = spec(sim.baseUrl, 10);
  const single = await runBenchmark({ resolved });
  const merged = await runReplicatesMerged({ resolved }, 2);
  const one = single.server!;
  const both = merged.server!;
  // Two 4 s windows scraped every 100 ms: about twice one window's scrapes (never one replicate's alone).
  expect(both.scrapes).toBeGreaterThan(1.6 * one.scrapes);
  // The sim's TTFT histogram counted each window's first tokens; the merge adds them: about the
  // client's ok requests in both windows (a request at a window's edge may fall either side of a scrape).
  const ok = merged.requests.window.by_class.ok;
  expect(both.ttft_ms!.count).toBeGreaterThan(0.85 * ok);
  expect(both.ttft_ms!.count).toBeLessThan(1.15 * ok);
  expect(both.ttft_ms!.buckets!.counts.at(-1)).toBe(both.ttft_ms!.count);
  expect(both.ttft_ms!.p50).toBeLessThanOrEqual(both.ttft_ms!.p95);
  expect(both.note).toBeUndefined();
  expect(() => parseResult(JSON.stringify(merged), 'merged')).not.toThrow();
});

test('a server without /metrics runs clean, with a note', async () => {
  const stream = openaiStream({ ttftMs: 5, itlMs: 1, tokens: 5 });
  scripted = await startScriptedServer(
    (req) =>
      req.url.endsWith('/models')
        ? { status: 200, steps: [{ send: '{"data":[]}' }, { end: true }] }
        : req.url === '/metrics'
          ? { status: 404, steps: [{ send: 'not found' }, { end: true }] }
          : stream,
    { metrics: true }, // the script itself answers /metrics, with a 404
  );
  const result = await runBenchmark({ resolved: spec(scripted.baseUrl, 20) });
  expect(result.requests.window.by_class.ok).toBe(result.requests.window.scheduled);
  // Clean: every request ok, nothing failed because of /metrics (the fixture's canned stream fails workload checks of its own).
  expect(result.requests.error_samples).toEqual([]);
  expect(result.validity.checks.filter((c) => /\/metrics|scrape/i.test(c.message)).map((c) => c.ok)).not.toContain(false);
  expect(result.server).toMatchObject({
    available: false,
    note: expect.stringMatching(/no metrics at http:\/\/127\.0\.0\.1:\d+\/metrics \(HTTP 404\)/),
  });
  expect(() => parseResult(JSON.stringify(result), 'result')).not.toThrow();
  const text = renderConsoleReport(result, compare(null, result, gateOf(result.spec)));
  expect(text).toMatch(/Server {6}no server view: no metrics at .*HTTP 404/);
});

test('metrics_url: false turns the server view off; a foreign host is refused before the load', async () => {
  sim = await launchSim(SIM);
  const off = await runBenchmark({ resolved: spec(sim.baseUrl, 5, '  metrics_url: false') });
  expect(off.server).toBeUndefined();
  expect(off.network).toBeDefined();
  expect(() => spec(sim!.baseUrl, 5, '  metrics_url: http://metrics.example.com/metrics')).toThrow(
    /target\.metrics_url is on metrics\.example\.com, not the target's host 127\.0\.0\.1/,
  );
  expect(() =>
    spec(sim!.baseUrl, 5, '  metrics_url: http://metrics.example.com/metrics\n  metrics_allowed_hosts: [metrics.example.com]'),
  ).not.toThrow();
});
