import type { SweepDocument } from '../../src/capacity/document.js';
import { runSweep } from '../../src/sweep/run.js';
import { CAPACITY, simSweepSpec } from './helpers.js';

/** Goodput target 95 %: a point of ~60 requests may lose two to a scheduling hiccup of a busy machine without failing. */
const SLO = '{ ttft_ms: 150 }';
const points = (d: SweepDocument) => d.analysis.points.map((p) => `${p.load}: ${p.goodput_fraction}`).join(', ');

test('capacity at SLO by bisection from a coarse ladder is within 10 % of a brute-force fine sweep', async () => {
  // Coarse: two rates, then bisection between the last passing and the first failing to 5 %.
  // Brute force: every rate from 0.88 × to 1.08 × the analytic ceiling in 4 % steps, no bisection.
  // The two sweeps have their own simulators and share nothing, so they run side by side.
  const fine = Array.from({ length: 6 }, (_, i) => Math.round(CAPACITY * (0.88 + 0.04 * i) * 100) / 100);
  const [coarse, brute] = await Promise.all([
    runSweep({
      resolved: simSweepSpec('{ rates: [12, 24], slo_target: 0.95, bisect: { precision: 0.05, max_points: 4, knee_points: 0 } }', SLO),
      workers: 1,
    }),
    runSweep({
      resolved: simSweepSpec(`{ rates: [${fine.join(', ')}], slo_target: 0.95, bisect: { max_points: 0, knee_points: 0 } }`, SLO),
      workers: 1,
    }),
  ]);
  const c = coarse.analysis.capacity_at_slo;
  expect(coarse.points.filter((p) => p.role === 'bisect').length).toBeGreaterThan(0);
  expect(c.rate_per_s).not.toBeNull();
  expect(c.resolution!).toBeLessThanOrEqual(0.05);
  const b = brute.analysis.capacity_at_slo;
  expect(b.rate_per_s).not.toBeNull();
  const ratio = c.rate_per_s! / b.rate_per_s!;
  if (Math.abs(ratio - 1) >= 0.1)
    throw new Error(`bisection ${c.rate_per_s} vs brute force ${b.rate_per_s}; coarse ${points(coarse)}; fine ${points(brute)}`);
  // Goodput cannot outrun throughput: both sit at or below the engine's ceiling.
  expect(c.rate_per_s!).toBeLessThanOrEqual(CAPACITY * 1.05);
}, 120_000);
