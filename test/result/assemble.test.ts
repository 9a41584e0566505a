import { assembleResult, loadLabel } from '../../src/result/assemble.js';
import { mergeResults, mergeTotals } from '../../src/result/merge.js';
import { resultCounts } from '../../src/result/totals.js';
import { bucketsOf } from '../../src/metrics/buckets.js';
import { decodeHistogram } from '../../src/metrics/histogram.js';
import type { Result } from '../../src/result/types.js';
import { lognormal, synthesize } from './synthetic.js';

/** Histograms as their buckets: an encoding is not canonical, the counts are. */
const decoded = (r: Result) =>
  Object.fromEntries(
    Object.entries(r.histograms).map(([k, v]) => {
      const b = bucketsOf(decodeHistogram(v), 1);
      return [k, { values: Array.from(b.values), counts: Array.from(b.counts) }];
    }),
  );

describe('one assembly for runs and merges', () => {
  const run = synthesize({ n: 700, ttft: lognormal(150, 0.4), outcome: (i) => (i % 40 === 0 ? 'http_5xx' : 'ok'), lagMs: 0.3 });

  test('a result merged alone is the run again: its counters come back from its sections, every figure the same', () => {
    const alone = mergeResults([run]);
    for (const section of ['requests', 'metrics', 'throughput', 'goodput', 'rates', 'workload', 'timeseries'] as const)
      expect(alone[section]).toEqual(run[section]);
    expect(decoded(alone)).toEqual(decoded(run));
    expect(alone.generator).toEqual(run.generator);
    expect(alone.load).toEqual({
      ...run.load,
      label: `${run.load.label.replace(/at [\d.]+ req\/s/, `at ${run.load.offered_rate_per_s} req/s`)} (1 replicates merged)`,
    });
    expect(alone.littles_law.mean_in_flight).toBe(run.littles_law.mean_in_flight);
    expect(alone.littles_law.predicted_in_flight).toBe(run.littles_law.predicted_in_flight);
    expect(alone.validity.checks.slice(0, -1)).toEqual(run.validity.checks);
    expect(alone.validity.checks.at(-1)!.name).toBe('merge_inputs');
  });

  test('the counters recovered from a result are the recorder counters it was built from', () => {
    const c = resultCounts(run);
    expect(c.windowScheduled).toBe(700);
    expect(c.windowOk).toBe(run.requests.window.by_class.ok);
    expect(c.completedInWindow).toBeCloseTo(run.throughput.requests_per_s * run.load.window_s, 6);
    // Totals assembled again give the same document: assembly adds nothing of its own.
    const again = assembleResult({ ...mergeTotals([run]), parts: undefined, merge: undefined, extraChecks: undefined });
    expect({ ...again, histograms: decoded(again) }).toEqual({ ...run, histograms: decoded(run), littles_law: again.littles_law });
    expect(again.littles_law.ratio).toBeCloseTo(run.littles_law.ratio!, 2);
  });

  test('one label function names every kind of run', () => {
    expect(loadLabel({ mode: 'open', arrival: 'poisson', rate: 15, concurrency: 8 })).toBe('open-loop poisson at 15 req/s');
    expect(loadLabel({ mode: 'closed', arrival: 'poisson', rate: 15, concurrency: 8 })).toBe('closed-loop, 8 concurrent');
    // A time-varying load is named by its pattern, in the spec's own terms.
    const open = { mode: 'open', arrival: 'poisson', rate: 10, concurrency: 8 } as const;
    expect(loadLabel({ ...open, pattern: { kind: 'spike', multiplier: 4, at: '10s', for: '5s' } })).toBe(
      'open-loop poisson at 10 req/s, spike ×4 at 10s for 5s',
    );
    expect(loadLabel({ ...open, pattern: { kind: 'ramp', from: 2, to: 20, over: '30s' } })).toBe(
      'open-loop poisson ramp 2 → 20 req/s over 30s',
    );
    expect(loadLabel({ ...open, pattern: { kind: 'steps', rates: [5, 10, 20], each: '10s' } })).toBe(
      'open-loop poisson in steps of 10s: 5 → 10 → 20 req/s',
    );
    expect(loadLabel({ ...open, soak: { segments: 6 } })).toBe('open-loop poisson at 10 req/s, soak in 6 segments');
    const shards = mergeResults(
      [0, 1].map((k) => synthesize({ n: 400, rate: 2, include: (i) => i % 2 === k })),
      { mode: 'shards' },
    );
    expect(shards.load.label).toBe('open-loop poisson at 4 req/s (2 shards merged)');
  });
});
