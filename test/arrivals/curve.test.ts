import { constantCurve, curveThrough, expectedArrivals, rateAt, type RateCurve } from '../../src/arrivals/curve.js';
import { loadPlan } from '../../src/arrivals/load-plan.js';
import { buildSchedule } from '../../src/arrivals/schedule.js';
import type { ResolvedPattern } from '../../src/spec/types.js';
import { resolveSpec } from '../../src/spec/resolve.js';

/** χ² upper quantile by Wilson–Hilferty: accurate to a fraction of a percent for df ≥ 10. */
const chi2Critical = (df: number, z = 2.326) => df * (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3;

/** Pearson's χ² of the schedule's arrivals per bin against Λ over each bin. */
function chiSquare(schedule: Float64Array, curve: RateCurve, fromMs: number, toMs: number, binMs: number): { stat: number; df: number } {
  const bins = Math.round((toMs - fromMs) / binMs);
  const observed = new Array<number>(bins).fill(0);
  for (const t of schedule) if (t >= fromMs && t < toMs) observed[Math.floor((t - fromMs) / binMs)]++;
  let stat = 0;
  observed.forEach((o, i) => {
    const e = expectedArrivals(curve, fromMs + i * binMs, fromMs + (i + 1) * binMs);
    stat += (o - e) ** 2 / e;
  });
  return { stat, df: bins };
}

const ramp = curveThrough([
  { t: 0, rate: 10 },
  { t: 60_000, rate: 200 },
]);
const spike = curveThrough([
  { t: 0, rate: 20 },
  { t: 10_000, rate: 20 },
  { t: 10_000, rate: 100 },
  { t: 15_000, rate: 100 },
  { t: 15_000, rate: 20 },
]);

describe('time-rescaled arrivals follow λ(t)', () => {
  test('a ramp 10 → 200 req/s over 60 s: arrivals per second fit Λ (χ², α = 0.01)', () => {
    const s = buildSchedule({ kind: 'poisson', curve: ramp, burstiness: 1, seed: 11, durationMs: 60_000 });
    const { stat, df } = chiSquare(s, ramp, 0, 60_000, 1000);
    expect(s.length).toBeGreaterThan(6000);
    expect(stat).toBeLessThan(chi2Critical(df));
  });

  test('a ×5 spike from 20 req/s for 5 s: arrivals per 500 ms fit Λ (χ², α = 0.01)', () => {
    const s = buildSchedule({ kind: 'poisson', curve: spike, burstiness: 1, seed: 5, durationMs: 30_000 });
    const { stat, df } = chiSquare(s, spike, 0, 30_000, 500);
    expect(stat).toBeLessThan(chi2Critical(df));
    const during = s.filter((t) => t >= 10_000 && t < 15_000).length;
    // Λ over the spike is 500: within 3 standard deviations of a Poisson count.
    expect(Math.abs(during - 500)).toBeLessThan(3 * Math.sqrt(500));
  });

  test('the same test rejects arrivals of the wrong curve, so it has teeth', () => {
    const flat = constantCurve(expectedArrivals(ramp, 0, 60_000) / 60);
    const s = buildSchedule({ kind: 'poisson', curve: flat, burstiness: 1, seed: 11, durationMs: 60_000 });
    expect(chiSquare(s, ramp, 0, 60_000, 1000).stat).toBeGreaterThan(chi2Critical(60));
    const late = buildSchedule({ kind: 'poisson', curve: spike, burstiness: 1, seed: 5, durationMs: 30_000 }).map((t) => t + 1000);
    expect(chiSquare(late, spike, 0, 30_000, 500).stat).toBeGreaterThan(chi2Critical(60));
  });

  test('gamma arrivals through a ramp keep the mean count of each 10 s slice', () => {
    const s = buildSchedule({ kind: 'gamma', curve: ramp, burstiness: 4, seed: 3, durationMs: 60_000 });
    for (let a = 0; a < 60_000; a += 10_000) {
      const n = s.filter((t) => t >= a && t < a + 10_000).length;
      const e = expectedArrivals(ramp, a, a + 10_000);
      expect(Math.abs(n - e)).toBeLessThan(3 * Math.sqrt(e));
    }
  });

  test('a ramp from 0 starts slowly and a zero-rate stretch sends nothing', () => {
    const c = curveThrough([
      { t: 0, rate: 0 },
      { t: 10_000, rate: 100 },
      { t: 20_000, rate: 100 },
      { t: 20_000, rate: 0 },
      { t: 25_000, rate: 0 },
      { t: 25_000, rate: 50 },
    ]);
    const s = buildSchedule({ kind: 'poisson', curve: c, burstiness: 1, seed: 9, durationMs: 30_000 });
    expect(s.filter((t) => t >= 20_000 && t < 25_000)).toHaveLength(0);
    expect(s.filter((t) => t < 1000).length).toBeLessThan(15); // Λ(1 s) = 5
    expect([...s].every((t, i) => i === 0 || t > s[i - 1])).toBe(true);
    expect(rateAt(c, 5000)).toBe(50);
  });
});

describe('the load plan', () => {
  const resolved = (pattern?: ResolvedPattern, rampUpMs?: number) => {
    const r = resolveSpec({ target: { url: 'sim' }, load: { rate: 40, warmup: '2s', steady: '10s', cooldown: '1s' } });
    return { ...r, pattern, rampUpMs };
  };

  test('without a pattern the curve is one constant piece: the schedule is the constant-rate one', () => {
    const plan = loadPlan(resolved());
    expect(plan.curve.segments).toHaveLength(1);
    const o = { kind: 'gamma' as const, burstiness: 0.5, seed: 4, durationMs: plan.totalMs };
    expect(buildSchedule({ ...o, curve: plan.curve })).toEqual(buildSchedule({ ...o, ratePerS: 40 }));
  });

  test('ramp-up precedes the warmup, and the window starts after both', () => {
    const plan = loadPlan(resolved(undefined, 3000));
    expect([plan.windowFromMs, plan.windowToMs, plan.totalMs]).toEqual([5000, 15_000, 16_000]);
    expect(rateAt(plan.curve, 1500)).toBeCloseTo(20);
    expect(rateAt(plan.curve, 4000)).toBe(40);
  });

  test('a spike: three phases, λ = multiplier × rate inside it', () => {
    const plan = loadPlan(resolved({ kind: 'spike', multiplier: 3, atMs: 4000, forMs: 2000 }));
    expect(plan.phases.map((p) => [p.name, p.fromMs, p.toMs, p.rate])).toEqual([
      ['pre-spike', 2000, 6000, 40],
      ['spike', 6000, 8000, 120],
      ['post-spike', 8000, 12_000, 40],
    ]);
    expect(rateAt(plan.curve, 7000)).toBe(120);
    expect(rateAt(plan.curve, 12_500)).toBe(40);
  });

  test('steps hold each rate for `each`, then the last one', () => {
    const plan = loadPlan(resolved({ kind: 'steps', rates: [10, 20, 30], eachMs: 3000 }));
    expect(plan.phases.map((p) => p.name)).toEqual(['step 1', 'step 2', 'step 3', 'hold']);
    expect([rateAt(plan.curve, 1000), rateAt(plan.curve, 6000), rateAt(plan.curve, 9000), rateAt(plan.curve, 12_500)]).toEqual([
      10, 20, 30, 30,
    ]);
  });
});
