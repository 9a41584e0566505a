import { analyzeSweep } from '../../src/capacity/analysis.js';
import { runAuto } from '../../src/sweep/auto.js';
import type { SweepRun } from '../../src/sweep/types.js';
import { parseSpec } from '../../src/spec/load.js';
import { syntheticPoint } from '../capacity/fixtures.js';

/**
 * The auto ladder's choices, with every point synthesized from a curve of load (the real
 * analysis judges them): a server with S = 20 ms whose concurrency-1 throughput X₁ is 10 req/s
 * and whose latency stays at the floor up to 30 req/s and completes at most 40.
 */
function ladder(goodputAt: (rate: number) => number): SweepRun {
  const resolved = parseSpec(
    `target: { url: "http://127.0.0.1:9/v1", model: m }
workload: { input_tokens: 100, output_tokens: 10 }
slo: { ttft_ms: 100 }
sweep: { auto: { growth: 2, fill: 1 }, slo_target: 0.95 }
`,
    'sweep.yml',
    {},
  );
  const run: SweepRun = {
    o: { resolved },
    points: [],
    skipped: [],
    planned: 0,
    options: { metric: 'ttft', sloTarget: 0.95, stop: resolved.spec.sweep!.stop, batchSlots: 8, precision: 0.05 },
    aborted: () => false,
    measure: (role, mode, load) => {
      const rate = mode === 'closed' ? 10 : load;
      const completed = Math.min(rate, 40);
      const ttftMs = rate <= 30 ? 20 : 20 * (rate / 30) ** 8;
      const point = syntheticPoint({
        rate,
        completed,
        ttftMs,
        goodput: goodputAt(rate),
        role,
        concurrency: mode === 'closed' ? load : undefined,
      });
      run.points.push(point);
      return Promise.resolve(
        role === 'probe' ? null : analyzeSweep(run.points, run.options).points[run.points.length - 1].saturated_because,
      );
    },
  };
  return run;
}

const below = (run: SweepRun) => run.points.filter((p) => p.role === 'below').map((p) => p.rate_per_s);

test('a first step that meets the SLO and the knee rules climbs without measuring below it', async () => {
  const run = ladder(() => 1);
  await runAuto(run);
  expect(run.points[1]).toMatchObject({ role: 'step', rate_per_s: 10 });
  expect(below(run)).toEqual([]);
});

test('a first step that misses the SLO target is measured below (X₁/4, X₁/2), so capacity at SLO has a passing point', async () => {
  const run = ladder((rate) => (rate < 6 ? 0.99 : 0.8));
  await runAuto(run);
  expect(below(run)).toEqual([2.5, 5]);
  const a = analyzeSweep(run.points, run.options);
  expect(a.capacity_at_slo.rate_per_s).toBe(5);
  expect(a.capacity_at_slo.failing_load).toBe(10);
});
