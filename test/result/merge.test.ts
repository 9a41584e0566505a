import { bucketsOf } from '../../src/metrics/buckets.js';
import { decodeHistogram } from '../../src/metrics/histogram.js';
import { parseResult } from '../../src/result/load.js';
import { mergeResults } from '../../src/result/merge.js';
import type { Result } from '../../src/result/types.js';
import { lognormal, synthesize } from './synthetic.js';

const buckets = (r: Result, name: string) => {
  const b = bucketsOf(decodeHistogram(r.histograms[name]), 1);
  return { values: Array.from(b.values), counts: Array.from(b.counts) };
};

describe('merge: shards', () => {
  // One run of 1,000 requests, and the same requests split between two generators at half the rate each.
  const common = {
    n: 1000,
    ttft: lognormal(120, 0.5),
    outcome: (i: number) => (i % 50 === 0 ? 'http_5xx' : i % 70 === 0 ? 'http_429' : 'ok'),
  } as const;
  const whole = synthesize({ ...common, rate: 10 });
  const halves = [0, 1].map((k) => synthesize({ ...common, rate: 5, include: (i) => i % 2 === k }));
  const merged = mergeResults(halves, { mode: 'shards' });

  test('merging two halves of a sample gives exactly the histograms and summaries of the whole', () => {
    expect(Object.keys(merged.histograms).sort()).toEqual(Object.keys(whole.histograms).sort());
    for (const name of Object.keys(whole.histograms)) expect(buckets(merged, name)).toEqual(buckets(whole, name));
    expect(merged.metrics).toEqual(whole.metrics);
    expect(merged.workload).toEqual(whole.workload);
  });

  test("counters add, rates add over the shared window, and the spec is the whole run's", () => {
    expect(merged.requests).toEqual(whole.requests);
    expect(merged.goodput).toEqual(whole.goodput);
    expect(merged.rates).toEqual(whole.rates);
    expect(merged.load.window_s).toBe(whole.load.window_s);
    expect(merged.load.offered_rate_per_s).toBe(10);
    expect(merged.load.achieved_rate_per_s).toBeCloseTo(whole.load.achieved_rate_per_s, 2);
    expect(merged.throughput.output_tokens_per_s).toBeCloseTo(whole.throughput.output_tokens_per_s, 2);
    expect(merged.timeseries).toEqual(whole.timeseries);
    expect(merged.spec).toEqual(whole.spec);
    expect(merged.spec_hash).toBe(whole.spec_hash);
    expect(merged.merge).toEqual({ mode: 'shards', merged_from: 2, forced: false });
    expect(merged.replicates).toBeUndefined();
    expect(merged.validity.valid).toBe(true);
  });

  test("real --shard runs carry the whole benchmark's hash, and their merge keeps it, whatever their own seeds", () => {
    // As shardSpec writes them: each half's spec has its own rate and seed, its hash is the whole run's.
    const cut = halves.map((h, k) => ({
      ...h,
      spec_hash: whole.spec_hash,
      spec: { ...h.spec, workload: { ...h.spec.workload, seed: 1000 + k } },
    }));
    expect(mergeResults(cut, { mode: 'shards' }).spec_hash).toBe(whole.spec_hash);
  });

  test('the merged result is a valid result document', () => {
    expect(parseResult(JSON.stringify(merged), 'merged.json').requests.window.scheduled).toBe(1000);
  });
});

describe('merge: replicates', () => {
  const runs = [1, 2, 3].map((seed) => synthesize({ n: 500, seed, ttft: lognormal(100, 0.3) }));
  const merged = mergeResults(runs);

  test('windows add, rates are averaged over the total window, histograms add', () => {
    expect(merged.load.window_s).toBe(300);
    expect(merged.load.offered_rate_per_s).toBe(5);
    expect(merged.requests.window.scheduled).toBe(1500);
    expect(merged.metrics.ttft_ms!.count).toBe(1500);
    // Each replicate completed the same requests inside its window; the merged rate is their mean.
    const mean = runs.reduce((a, r) => a + r.throughput.output_tokens_per_s, 0) / runs.length;
    expect(merged.throughput.output_tokens_per_s).toBeCloseTo(mean, 2);
    expect(mean).toBeGreaterThan(99);
    expect(merged.timeseries.sent.length).toBe(runs[0].timeseries.sent.length);
    expect(merged.merge).toEqual({ mode: 'replicates', merged_from: 3, forced: false });
  });

  test('records the run-to-run spread (sample CV) of key metrics', () => {
    const p95s = runs.map((r) => r.metrics.ttft_ms!.p95);
    const mean = p95s.reduce((a, b) => a + b, 0) / 3;
    const sd = Math.sqrt(p95s.reduce((a, x) => a + (x - mean) ** 2, 0) / 2);
    expect(merged.replicates!.count).toBe(3);
    expect(merged.replicates!.cv['ttft_ms.p95']).toBeCloseTo(sd / mean, 4);
    expect(merged.replicates!.cv['throughput.output_tokens_per_s']).toBe(0);
  });

  test('merging merged results counts the original runs', () => {
    expect(mergeResults([merged, runs[0]]).merge!.merged_from).toBe(4);
  });
});

describe('merge: refusals', () => {
  test('different models or specs are refused in one line unless forced', () => {
    const a = synthesize({ n: 200 });
    expect(() => mergeResults([a, synthesize({ n: 200, model: 'other' })], { names: ['a.json', 'b.json'] })).toThrow(
      'cannot merge b.json: its model "other" differs from a.json\'s "test-model"; pass --force to merge anyway',
    );
    expect(() => mergeResults([a, synthesize({ n: 200, tokens: 30 })], { names: ['a.json', 'b.json'] })).toThrow(
      /^cannot merge b\.json: its spec hash [0-9a-f]{12} differs from a\.json's [0-9a-f]{12} \(a different benchmark\); pass --force to merge anyway$/,
    );
    const forced = mergeResults([a, synthesize({ n: 200, tokens: 30 })], { force: true });
    expect(forced.merge!.forced).toBe(true);
    expect(forced.validity.valid).toBe(false);
    expect(forced.validity.checks.find((c) => c.name === 'merge_inputs')!.message).toMatch(
      /^merged with --force across different benchmarks/,
    );
  });

  test('shards are judged by their busiest generator thread, and pool waits merge exactly', () => {
    const calm = synthesize({ n: 400, include: (i) => i % 2 === 0, windowCpu: { busy: 0.4, spin: 0.3 }, poolWaitMs: 0.2 });
    const busy = synthesize({ n: 400, include: (i) => i % 2 === 1, windowCpu: { busy: 0.95, spin: 0.01 }, poolWaitMs: 2 });
    const merged = mergeResults([calm, busy], { mode: 'shards' });
    expect(merged.generator.window_cpu).toEqual({ busy: 0.95, spin: 0.01 });
    expect(merged.validity.checks.find((c) => c.name === 'generator_cpu')!.ok).toBe(false);
    expect(merged.generator.pool_wait_ms!.p50).toBeCloseTo(calm.generator.pool_wait_ms!.p50, 2);
    expect(merged.generator.pool_wait_ms!.max).toBeCloseTo(busy.generator.pool_wait_ms!.max, 2);
    expect(mergeResults([calm, synthesize({ n: 400, windowCpu: null })], { mode: 'shards' }).generator.window_cpu).toEqual({
      busy: 0.4,
      spin: 0.3,
    });
  });

  test('an invalid input makes the merge invalid', () => {
    const merged = mergeResults([synthesize({ n: 200 }), synthesize({ n: 200, lagMs: 10 })]);
    expect(merged.validity.checks.find((c) => c.name === 'merge_inputs')).toMatchObject({
      ok: false,
      message: 'an input was not valid: result 2 failed schedule_lag',
    });
  });

  test('nothing to merge is an error', () => {
    expect(() => mergeResults([])).toThrow('nothing to merge: give at least one result');
  });
});

describe('merge: the in-flight peak', () => {
  // synthesize() records one request at a time, so its own peak is 1; these stand for two real runs'.
  const a = { ...synthesize({ n: 200, seed: 1 }) };
  const b = { ...synthesize({ n: 200, seed: 2 }) };
  a.littles_law = { ...a.littles_law, peak_in_flight: 3 };
  b.littles_law = { ...b.littles_law, peak_in_flight: 7 };

  test('replicates keep the highest peak, shards add theirs; an input without one leaves it out', () => {
    expect(synthesize({ n: 10 }).littles_law.peak_in_flight).toBe(1);
    expect(mergeResults([a, b], { mode: 'replicates', force: true }).littles_law.peak_in_flight).toBe(7);
    expect(mergeResults([a, b], { mode: 'shards', force: true }).littles_law.peak_in_flight).toBe(10);
    const older = structuredClone(a);
    delete older.littles_law.peak_in_flight;
    expect(mergeResults([older, b], { mode: 'replicates', force: true }).littles_law.peak_in_flight).toBeUndefined();
  });
});

test('results that ran conversations are not merged: their per-turn figures are kept per run', () => {
  const withSessions = (seed: number): Result => {
    const r = synthesize({ n: 100, seed });
    return { ...r, workload: { ...r.workload, plan: { ...r.workload.plan!, sessions: { started: 10 } as never } } };
  };
  expect(() => mergeResults([withSessions(1), withSessions(2)])).toThrow(
    /^cannot merge 2 of 2 results that ran workload\.sessions: their per-turn figures are kept per run; expected one result per conversation run$/,
  );
  expect(() => mergeResults([synthesize({ n: 100, seed: 1 }), synthesize({ n: 100, seed: 2 })])).not.toThrow();
});
