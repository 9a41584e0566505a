import { runBenchmark } from '../../src/run/run.js';
import type { Result } from '../../src/result/types.js';
import { launchSim, type SimHandle } from '../../src/sim/launch.js';
import { parseSpec } from '../../src/spec/load.js';
import { openaiStream, startScriptedServer } from '../fixtures/scripted-server.js';

/** Short open-loop runs against the simulator (needs the bundle: node scripts/bundle.mjs). */
const spec = (target: string, workload: string, load = 'rate: 10') =>
  parseSpec(
    `target: ${target}\nworkload: ${workload}\nload: {${load}, arrival: constant, warmup: 0s, steady: 2s, cooldown: 0s}`,
    'x.yml',
    {},
  );
const check = (r: Result) => r.validity.checks.find((c) => c.name === 'workload_delivered')!;

describe('delivered input tokens match the request against the simulator', () => {
  test.each([
    ['128', '128', 'rate: 10'],
    ['1,000', '{dist: normal, mean: 1000, stddev: 100}', 'rate: 5'],
    ['4,000', '4000', 'rate: 3'],
  ])("%s tokens: within 5 %% of the requested mean, calibrated by the sim's /tokenize", async (_label, input, load) => {
    const r = await runBenchmark({ resolved: spec('{url: sim}', `{seed: 2, input_tokens: ${input}, output_tokens: 4}`, load) });
    const { requested, delivered } = r.workload.input_tokens;
    expect(delivered!.count).toBe(r.requests.window.by_class.ok);
    expect(delivered!.count).toBeGreaterThanOrEqual(5);
    expect(Math.abs(delivered!.mean / requested!.mean - 1)).toBeLessThan(0.05);
    expect(r.workload.plan!.calibration).toMatchObject({ method: 'tokenize', tokens_per_word: 1, overhead_tokens: 0 });
    expect(check(r)).toMatchObject({
      ok: true,
      message: expect.stringMatching(
        /^input mean [\d.]+ tokens delivered vs [\d.]+ requested \([+-][\d.]+ %; needs within 5 %\); output mean 4\.0 tokens delivered vs 4\.0 requested/,
      ),
    });
    // The spec's own distribution is in the result beside what was sent.
    expect(Math.abs(r.workload.input_tokens.spec!.mean / Number(input.match(/\d+/)![0]) - 1)).toBeLessThan(0.01);
  });
});

describe("prefix groups against the simulator's prefix cache", () => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await launchSim({ seed: 1 });
  });
  afterAll(() => sim?.stop());

  /** Σ cached / Σ prompt tokens over the sim's ground truth of the run's requests. */
  async function cacheHitRatio(r: Result): Promise<number> {
    const truth = (await (await fetch(`${sim.origin}/sim/requests`)).json()) as { prompt_tokens: number; cached_tokens: number }[];
    expect(truth).toHaveLength(r.requests.scheduled);
    await fetch(`${sim.origin}/sim/requests`, { method: 'DELETE' });
    return truth.reduce((a, t) => a + t.cached_tokens, 0) / truth.reduce((a, t) => a + t.prompt_tokens, 0);
  }
  const run = (workload: string) => runBenchmark({ resolved: spec(`{url: ${sim.baseUrl}, model: sim-8b}`, workload, 'rate: 20') });

  test('Zipf prefix groups give the hit ratio the prompts allow, as the sim counts it', async () => {
    // 4 groups of 128 tokens (8 full cache blocks of 16) in 256-token prompts: each request after
    // its group's first finds its 128 prefix tokens cached, so the ratio is (n − groups seen) × 128 / (n × 256).
    const r = await run('{input_tokens: 256, output_tokens: 2, prefix_groups: {groups: 4, tokens: 128, zipf_s: 1.0}}');
    const expected = r.workload.plan!.prefix.expected_cache_hit_ratio;
    const n = r.requests.scheduled;
    expect(expected).toBeGreaterThanOrEqual(((n - 4) * 128) / (n * 256) - 0.001);
    expect(expected).toBeLessThan(0.5);
    expect(Math.abs((await cacheHitRatio(r)) - expected)).toBeLessThan(0.02);
    expect(r.workload.plan!.prefix.mode).toBe('groups');
  });

  test('a shared system prompt is cached for every request after the first', async () => {
    const r = await run('{input_tokens: 200, output_tokens: 2, prefix: {shared_tokens: 96}}');
    expect(Math.abs((await cacheHitRatio(r)) - r.workload.plan!.prefix.expected_cache_hit_ratio)).toBeLessThan(0.02);
    expect(r.workload.plan!.prefix.expected_cache_hit_ratio).toBeGreaterThan(0.4);
  });

  test('by default no request hits the cache: prompts are unique from the first word, and across runs', async () => {
    const w = '{input_tokens: 256, output_tokens: 2}';
    const first = await run(w);
    expect(await cacheHitRatio(first)).toBe(0);
    expect(first.workload.plan!.prefix).toEqual({ mode: 'unique', expected_cache_hit_ratio: 0 });
    // The same spec again: a new salt, so the first run's cached blocks do not help the second.
    expect(await cacheHitRatio(await run(w))).toBe(0);
  });
});

describe('output length control', () => {
  test('with output_control none the sim ends outputs early: the shortfall is reported, output is not judged', async () => {
    const r = await runBenchmark({
      resolved: spec(
        '{url: sim, sim: {output_tokens: {dist: fixed, value: 20}}}',
        '{input_tokens: 16, output_tokens: 50, output_control: none}',
      ),
    });
    expect(r.workload.output_tokens.shortfall).toEqual({ requests: r.requests.window.by_class.ok, mean_tokens: 30 });
    expect(check(r)).toMatchObject({
      ok: true,
      message: expect.stringContaining(
        'output mean 20.0 tokens delivered vs 50.0 requested, not judged: output_control is none, so max_tokens is only a cap',
      ),
    });
  });

  test('min_tokens forces the length on a server that honours it', async () => {
    const r = await runBenchmark({
      resolved: spec(
        '{url: sim, sim: {output_tokens: {dist: fixed, value: 20}}}',
        '{input_tokens: 16, output_tokens: 50, output_control: min_tokens}',
      ),
    });
    expect(r.workload.output_tokens.shortfall).toEqual({ requests: 0, mean_tokens: null });
    expect(check(r).ok).toBe(true);
  });

  test('a server that ignores ignore_eos fails workload_delivered, with the shortfall and the likely cause', async () => {
    const server = await startScriptedServer((req) =>
      req.url.endsWith('/models')
        ? { status: 200, steps: [{ send: '{"data":[]}' }, { end: true }] }
        : openaiStream({ tokens: 12, promptTokens: 16 }),
    );
    try {
      const r = await runBenchmark({
        resolved: spec(`{url: ${server.baseUrl}, model: m}`, '{input_tokens: 16, output_tokens: 50, calibrate: off}'),
      });
      expect(r.workload.output_tokens.shortfall).toEqual({ requests: r.requests.window.by_class.ok, mean_tokens: 38 });
      const c = check(r);
      expect(c.ok).toBe(false);
      expect(c.message).toBe(
        `input mean 16.0 tokens delivered vs 16.0 requested (+0.0 %; needs within 10 %); output mean 12.0 tokens delivered vs 50.0 requested (-76.0 %; needs within 10 %); ${r.requests.window.by_class.ok} requests got fewer output tokens than max_tokens: the server stopped early (does it honour ignore_eos or min_tokens? see workload.output_control)`,
      );
      expect(r.validity.valid).toBe(false);
    } finally {
      await server.close();
    }
  });
});
