import { buildSchedule } from '../../src/arrivals/schedule.js';
import { createArrivalProcess } from '../../src/arrivals/process.js';
import { createRng, gamma } from '../../src/rng.js';

/** Kolmogorov–Smirnov statistic of samples against a continuous CDF. */
function ks(samples: number[], cdf: (x: number) => number): number {
  const s = [...samples].sort((a, b) => a - b);
  let d = 0;
  s.forEach((x, i) => {
    const f = cdf(x);
    d = Math.max(d, (i + 1) / s.length - f, f - i / s.length);
  });
  return d;
}

function gaps(schedule: Float64Array): number[] {
  const out: number[] = [];
  for (let i = 1; i < schedule.length; i++) out.push(schedule[i] - schedule[i - 1]);
  return out;
}

describe('arrival schedule', () => {
  test('Poisson inter-arrivals follow the exponential distribution (KS test at α = 0.01)', () => {
    const rate = 50;
    const g = gaps(buildSchedule({ kind: 'poisson', ratePerS: rate, burstiness: 1, seed: 7, durationMs: 200_000 }));
    expect(g.length).toBeGreaterThan(9000);
    const d = ks(g, (x) => 1 - Math.exp(-(rate / 1000) * x));
    expect(d).toBeLessThan(1.63 / Math.sqrt(g.length));
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    expect(mean).toBeGreaterThan(19.5);
    expect(mean).toBeLessThan(20.5);
  });

  test('a wrong rate fails the same KS test, so the test has teeth', () => {
    const g = gaps(buildSchedule({ kind: 'poisson', ratePerS: 50, burstiness: 1, seed: 7, durationMs: 200_000 }));
    const d = ks(g, (x) => 1 - Math.exp(-(55 / 1000) * x));
    expect(d).toBeGreaterThan(1.63 / Math.sqrt(g.length));
  });

  test('the same seed gives the same schedule; another seed another one', () => {
    const o = { kind: 'poisson' as const, ratePerS: 20, burstiness: 1, durationMs: 10_000 };
    const a = buildSchedule({ ...o, seed: 1 });
    expect(buildSchedule({ ...o, seed: 1 })).toEqual(a);
    expect(buildSchedule({ ...o, seed: 2 })).not.toEqual(a);
  });

  test('constant arrivals are evenly spaced at 1/rate', () => {
    const s = buildSchedule({ kind: 'constant', ratePerS: 100, burstiness: 1, seed: 1, durationMs: 1000 });
    expect(s.length).toBe(99);
    for (const g of gaps(s)) expect(g).toBeCloseTo(10, 9);
  });

  test.each([0.25, 1, 4])('gamma(k = %p) keeps the mean gap 1/rate and has CV 1/√k', (k) => {
    const g = gaps(buildSchedule({ kind: 'gamma', ratePerS: 40, burstiness: k, seed: 3, durationMs: 500_000 }));
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    const sd = Math.sqrt(g.reduce((a, b) => a + (b - mean) ** 2, 0) / g.length);
    expect(mean / 25).toBeGreaterThan(0.97);
    expect(mean / 25).toBeLessThan(1.03);
    expect((sd / mean) * Math.sqrt(k)).toBeGreaterThan(0.94);
    expect((sd / mean) * Math.sqrt(k)).toBeLessThan(1.06);
  });

  test('gamma sampler has the right mean and variance for small and large shapes', () => {
    for (const shape of [0.3, 2.5]) {
      const rng = createRng(11);
      const xs = Array.from({ length: 50_000 }, () => gamma(rng, shape));
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      const v = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
      expect(mean / shape).toBeCloseTo(1, 1);
      expect(v / shape).toBeCloseTo(1, 1);
    }
  });

  test('arrival processes are values: two with one seed agree', () => {
    const a = createArrivalProcess('gamma', 10, 5, 0.5);
    const b = createArrivalProcess('gamma', 10, 5, 0.5);
    for (let i = 0; i < 100; i++) expect(a.nextGapMs()).toBe(b.nextGapMs());
  });
});
