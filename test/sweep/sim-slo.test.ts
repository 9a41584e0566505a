import { runSweep } from '../../src/sweep/run.js';
import { CAPACITY, simSweepSpec } from './helpers.js';

test('capacity at SLO by bisection from a coarse ladder is within 10 % of a brute-force fine sweep', async () => {
  // Coarse: three rates, then bisection between the last passing and the first failing to 5 %.
  const coarse = await runSweep({ resolved: simSweepSpec('{ rates: [8, 16, 32], bisect: { precision: 0.05, max_points: 4 } }'), workers: 1 });
  const c = coarse.analysis.capacity_at_slo;
  expect(coarse.points.filter((p) => p.role === 'bisect').length).toBeGreaterThan(0);
  expect(c.rate_per_s).not.toBeNull();
  expect(c.failing_load).not.toBeNull();
  // Brute force: every rate from 0.75 × to 1.1 × the analytic ceiling in ~4 % steps, no bisection.
  const fine = Array.from({ length: 10 }, (_, i) => Math.round(CAPACITY * (0.75 + 0.04 * i) * 100) / 100);
  const brute = await runSweep({ resolved: simSweepSpec(`{ rates: [${fine.join(', ')}], bisect: { max_points: 0 } }`), workers: 1 });
  const b = brute.analysis.capacity_at_slo;
  expect(b.rate_per_s).not.toBeNull();
  expect(b.failing_load).not.toBeNull(); // the fine grid brackets it too
  expect(Math.abs(c.rate_per_s! / b.rate_per_s! - 1)).toBeLessThan(0.1);
  // Both sit at or below the engine's ceiling: goodput cannot outrun throughput.
  expect(c.rate_per_s!).toBeLessThanOrEqual(CAPACITY * 1.05);
}, 120_000);
