import { runSweep } from '../../src/sweep/run.js';
import { CAPACITY, simSweepSpec } from './helpers.js';

test('profile guidellm: the synchronous probe, a closed-loop maximum-throughput point, then rates evenly between them', async () => {
  const doc = await runSweep({
    resolved: simSweepSpec('{ auto: { max_points: 3 }, profile: guidellm, bisect: { max_points: 0, knee_points: 0, repeat_points: 0 } }'),
    workers: 1,
  });
  expect(doc.points.slice(0, 2).map((p) => [p.role, p.mode, p.concurrency])).toEqual([
    ['probe', 'closed', 1],
    ['throughput', 'closed', 16], // twice the engine's 8 batch slots
  ]);
  const x1 = doc.points[0].result.throughput.requests_per_s;
  const xt = doc.points[1].result.throughput.requests_per_s;
  // The throughput point holds every slot busy: its completions are the engine's analytic ceiling.
  expect(Math.abs(xt / CAPACITY - 1)).toBeLessThan(0.1);
  const steps = doc.points.filter((p) => p.role === 'step').map((p) => p.rate_per_s!);
  expect(steps.length).toBeGreaterThan(0);
  steps.forEach((r, i) => expect(r).toBeCloseTo(x1 + ((i + 1) * (xt - x1)) / 4, 2));
  expect(doc.analysis.saturation.reached).toBe(true);
  expect(Math.abs(doc.analysis.saturation.requests_per_s! / CAPACITY - 1)).toBeLessThan(0.1);
}, 60_000);
