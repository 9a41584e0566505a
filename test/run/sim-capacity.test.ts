import { runBenchmark } from '../../src/run/run.js';
import { validateSimConfig } from '../../src/sim/config.js';
import { saturationRate } from '../../src/sim/engine.js';
import { parseSpec } from '../../src/spec/load.js';
import type { Result } from '../../src/result/types.js';
import { ttftShareAtOrBelow } from './helpers.js';

/** A small engine whose analytic capacity is 25 req/s for 50-token prompts and 20-token outputs. */
const ENGINE = { max_num_seqs: 4, decode_base_ms: 4, decode_ms_per_seq: 1, prefill_ms_per_token: 0.02, enable_prefix_caching: false };
const CAPACITY = saturationRate(validateSimConfig(ENGINE), 50, 20);

function simSpec(rate: number, sim: object, steady = '4s') {
  return parseSpec(
    `target: { url: sim, sim: ${JSON.stringify(sim)} }
workload: { seed: 3, input_tokens: 50, output_tokens: 20, calibrate: off }
load: { arrival: constant, rate: ${rate}, warmup: 1s, steady: ${steady}, cooldown: 0s }
`,
    'sim.yml',
    {},
  );
}

/** Completions per second during the steady window, from the time series. */
function completionsPerS(r: Result): number {
  const iv = r.timeseries.interval_s;
  const steady = r.timeseries.ok.slice(r.load.warmup_s / iv, (r.load.warmup_s + r.load.window_s) / iv);
  return steady.reduce((a, b) => a + b, 0) / (steady.length * iv);
}

test('a rate sweep finds the analytic knee: throughput flattens at capacity, TTFT p95 rises superlinearly', async () => {
  expect(CAPACITY).toBeCloseTo(25, 0);
  const results: Result[] = [];
  for (const factor of [0.5, 0.9, 1.4]) results.push(await runBenchmark({ resolved: simSpec(factor * CAPACITY, ENGINE) }));
  const [r50, , r140] = results as [Result, Result, Result];
  // Below the knee the server completes what it is offered.
  expect(completionsPerS(r50) / (0.5 * CAPACITY)).toBeGreaterThan(0.85);
  // Past it, completions flatten within 15 % of the analytic capacity while arrivals go on.
  expect(completionsPerS(r140) / CAPACITY).toBeGreaterThan(0.85);
  expect(completionsPerS(r140) / CAPACITY).toBeLessThan(1.15);
  expect(r140.throughput.requests_per_s / CAPACITY).toBeLessThan(1.15);
  // Queueing: a 1.8× step in load from 0.5× to 0.9× barely moves TTFT; the 1.6× step past the knee multiplies it.
  const ttft = results.map((r) => r.metrics.ttft_ms!.p95);
  expect(ttft[1] / ttft[0]).toBeLessThan(3);
  expect(ttft[2] / ttft[1]).toBeGreaterThan(5);
  expect(r140.goodput.fraction!).toBeLessThan(r50.goodput.fraction!);
});

test('each simulator fault reaches the client as its own class, and the counts add up', async () => {
  const faults = { error_rate: 0.1, stream_error_rate: 0.1, truncate_rate: 0.1, malformed_rate: 0.1, reset_rate: 0.1, seed: 9 };
  const r = await runBenchmark({ resolved: simSpec(40, { mode: 'paced', ttft_ms: 5, itl_ms: 1, ...faults }, '3s') });
  const c = r.requests.by_class;
  expect(Object.values(c).reduce((a, b) => a + b, 0)).toBe(r.requests.scheduled);
  expect(c.http_5xx).toBeGreaterThan(0);
  expect(c.stream_error).toBeGreaterThan(c.http_5xx); // four faults land there: error event, no [DONE], malformed, reset
  expect(c.ok / r.requests.scheduled).toBeGreaterThan(0.3);
  expect(c.ok / r.requests.scheduled).toBeLessThan(0.7);
  const details = r.requests.error_samples.map((e) => `${e.class}: ${e.detail}`).join('\n');
  expect(details).toMatch(/http_5xx: HTTP 50[023]/);
  expect(details).toMatch(/stream_error: stream ended without \[DONE\]/);
  expect(details).toMatch(/stream_error: malformed chunk/);
  expect(details).toMatch(/stream_error: connection lost mid-stream/);
  expect(details).toMatch(/stream_error: error event|stream_error: .*error/);
});

test('an engine stall shows in open-loop TTFT: the requests that arrived during it carry the wait', async () => {
  const engine = {
    max_num_seqs: 64,
    decode_base_ms: 2,
    decode_ms_per_seq: 0.05,
    prefill_ms_per_token: 0.01,
    enable_prefix_caching: false,
    stall: { duration_ms: 1000, at_ms: [2500] },
  };
  const r = await runBenchmark({ resolved: simSpec(40, engine, '4s') });
  const ttft = r.metrics.ttft_ms!;
  expect(ttft.max).toBeGreaterThan(900);
  expect(ttft.p50).toBeLessThan(100);
  // 40 req/s × 1 s: the ~40 requests that arrived during the stall waited up to 1 s; all but
  // the last ~100 ms of them (≈ 36) show more than 100 ms of TTFT. Closed loop would show ≤ its concurrency.
  const slow = r.requests.window.by_class.ok * (1 - ttftShareAtOrBelow(r, 100));
  expect(slow).toBeGreaterThan(26);
  expect(slow).toBeLessThan(50);
});
