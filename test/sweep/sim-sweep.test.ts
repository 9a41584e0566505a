import { parseSweep } from '../../src/capacity/load.js';
import { runSweep } from '../../src/sweep/run.js';
import { CAPACITY, OUTPUT, pointTable, simSweepSpec, TTFT_FLOOR_MS } from './helpers.js';

test('an auto sweep finds the analytic saturation rate within 10 %, a knee below it, and stops past saturation', async () => {
  expect(CAPACITY).toBeCloseTo(22.73, 1);
  const doc = await runSweep({
    resolved: simSweepSpec('{ auto: { growth: 3, fill: 2 }, bisect: { max_points: 2, knee_points: 0 } }'),
    workers: 1,
  });
  const a = doc.analysis;
  const context = `\n${pointTable(doc)}\nknee: ${a.knee.note}\nstopped: ${doc.stopped_because}`;
  expect(doc.label).toBe('open-loop rate sweep');
  // The probe: one request at a time, so S is the engine's floor: one step of decode and prefill.
  expect(doc.points[0]).toMatchObject({ role: 'probe', mode: 'closed', concurrency: 1 });
  // The engine's floor bounds the probe's TTFT; S is that TTFT less the measured round trip, so
  // it may sit a round trip under the floor (a busy machine's probe sees a longer one).
  expect(a.service_floor.p50_ms!).toBeGreaterThanOrEqual(TTFT_FLOOR_MS);
  expect(a.service_floor_ms!).toBeLessThanOrEqual(a.service_floor.p50_ms!);
  // Above it, S is late by what a busy machine added to the probe's first tokens: the simulator
  // and the client share one loop, so each waits at most its delay (the probe's own p99).
  expect(a.service_floor_ms!).toBeLessThan(1.5 * TTFT_FLOOR_MS + 2 * doc.points[0].result.generator.event_loop_delay_ms.p99);
  // The plateau of completions is the engine's analytic ceiling.
  expect(a.saturation.reached).toBe(true);
  expect(Math.abs(a.saturation.requests_per_s! / CAPACITY - 1)).toBeLessThan(0.1);
  expect(Math.abs(a.saturation.output_tokens_per_s! / (CAPACITY * OUTPUT) - 1)).toBeLessThan(0.1);
  if (a.knee.rate_per_s === null) throw new Error(`no knee${context}`);
  expect(a.knee.rate_per_s).toBeLessThan(a.saturation.requests_per_s!);
  expect(a.capacity_at_slo.rate_per_s).not.toBeNull();
  // Stepping stopped at the first ladder point past saturation: nothing heavier was measured.
  const steps = doc.points.filter((p) => p.role === 'step');
  const last = steps[steps.length - 1];
  expect(a.points[doc.points.indexOf(last)].saturated).toBe(true);
  expect(Math.max(...doc.points.filter((p) => p.mode === 'open').map((p) => p.rate_per_s!))).toBe(last.rate_per_s);
  expect(doc.stopped_because).toMatch(/req\/s is past saturation: /);
  expect(doc.points.filter((p) => p.role === 'fill')).toHaveLength(2);
  // Each point is a full measurement with its own window (two when within noise), and the document passes its schema.
  for (const p of doc.points) expect(p.result.load.window_s).toBe(2.5 * (p.windows ?? 1)); // a point within noise is measured again
  expect(parseSweep(JSON.parse(JSON.stringify(doc)), 'sweep.json').analysis.saturation.requests_per_s).toBe(a.saturation.requests_per_s);
}, 90_000);

test("a closed-loop concurrency sweep is labelled closed-loop and its Little's law L = λW matches the concurrency", async () => {
  const doc = await runSweep({
    resolved: simSweepSpec('{ concurrency: [1, 4, 8], bisect: { max_points: 0, knee_points: 0 } }'),
    workers: 1,
  });
  expect(doc.label).toBe('closed-loop concurrency sweep');
  expect(doc.analysis.mode).toBe('closed');
  // A point within noise of its neighbour is measured again, its replicates merged into one.
  expect(doc.points.map((p) => p.result.load.label.replace(/ \(\d+ replicates merged\)$/, ''))).toEqual([
    'closed-loop, 1 concurrent',
    'closed-loop, 4 concurrent',
    'closed-loop, 8 concurrent',
  ]);
  for (const p of doc.analysis.points) {
    const c = p.load;
    // L = λ·W from throughput and mean E2E, and the measured time-average in flight: both ≈ c.
    expect(Math.abs((p.requests_per_s * p.e2e_ms.mean!) / 1000 / c - 1)).toBeLessThan(0.15);
    expect(Math.abs(p.littles_law.mean_in_flight / c - 1)).toBeLessThan(0.1);
    expect(p.littles_law.peak_in_flight).toBe(c);
    expect(p.littles_law.oversubscribed).toBe(false); // 8 slots hold up to 8 in flight
  }
}, 60_000);
