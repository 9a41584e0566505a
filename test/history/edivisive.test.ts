import { createRng, normal } from '../../src/rng.js';
import { bestSplit, eDivisive } from '../../src/history/edivisive.js';

/** Nights of a metric around `level` with a coefficient of variation `cv`, stepping by `step` (relative) from `at` on. */
function nights(seed: number, n: number, cv: number, step = 0, at = n): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, (_, i) => 100 * (i >= at ? 1 + step : 1) * (1 + cv * normal(rng)));
}

const options = (seed: number) => ({ alpha: 0.05, permutations: 199, minSize: 3, rng: createRng(seed) });

/** Q̂ straight from the published formula, for every split τ, κ. */
function bruteForce(z: number[], minSize: number, searchKappa: boolean): { tau: number; q: number } {
  let best = { tau: -1, q: -Infinity };
  const d = (x: number, y: number) => Math.abs(x - y);
  for (let tau = minSize; tau <= z.length - minSize; tau++) {
    for (let kappa = searchKappa ? tau + minSize : z.length; kappa <= z.length; kappa++) {
      const X = z.slice(0, tau);
      const Y = z.slice(tau, kappa);
      const [m, n] = [X.length, Y.length];
      let cross = 0;
      for (const x of X) for (const y of Y) cross += d(x, y);
      let wx = 0;
      for (let i = 0; i < m; i++) for (let k = i + 1; k < m; k++) wx += d(X[i], X[k]);
      let wy = 0;
      for (let i = 0; i < n; i++) for (let k = i + 1; k < n; k++) wy += d(Y[i], Y[k]);
      const e = (2 * cross) / (m * n) - wx / ((m * (m - 1)) / 2) - wy / ((n * (n - 1)) / 2);
      const q = ((m * n) / (m + n)) * e;
      if (q > best.q) best = { tau, q };
    }
  }
  return best;
}

describe('E-divisive means', () => {
  it('finds the split the published formula maximizes, on random series of every length', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const z = nights(seed, 6 + (seed % 15), 0.2, seed % 3 === 0 ? 0.3 : 0, 5);
      for (const kappa of ['end', 'search'] as const) {
        const fast = bestSplit(z, 3, 1, kappa)!;
        const slow = bruteForce(z, 3, kappa === 'search');
        expect(fast.tau).toBe(slow.tau);
        expect(fast.q).toBeCloseTo(slow.q, 9);
      }
    }
  });

  it('finds a 25 % step at 5 % CV at its night (±1), over 30 seeded series', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const splits = eDivisive(nights(seed, 20, 0.05, 0.25, 11), options(seed));
      expect(splits.length).toBeGreaterThanOrEqual(1);
      expect(splits.some((s) => Math.abs(s.index - 11) <= 1)).toBe(true);
      for (const s of splits) expect(s.pValue).toBeLessThanOrEqual(0.05);
    }
  });

  it('finds two steps, each at its night', () => {
    const z = nights(7, 30, 0.03, 0, 30).map((x, i) => x * (i >= 10 ? 1.3 : 1) * (i >= 20 ? 0.7 : 1));
    const idx = eDivisive(z, options(7)).map((s) => s.index);
    expect(idx).toEqual([10, 20]);
  });

  it('raises a false alarm on a series without a step at about the significance level, not more', () => {
    let alarms = 0;
    for (let seed = 1; seed <= 200; seed++) if (eDivisive(nights(1000 + seed, 20, 0.1), options(seed)).length > 0) alarms++;
    expect(alarms / 200).toBeLessThanOrEqual(0.09);
    expect(alarms).toBeGreaterThan(0); // a test at 5 % that never fires on 200 series would not be testing
  });

  it('does not call one outlier night a change point', () => {
    let alarms = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const z = nights(2000 + seed, 20, 0.05);
      z[5 + (seed % 12)] *= 1.6;
      if (eDivisive(z, options(seed)).length > 0) alarms++;
    }
    expect(alarms / 100).toBeLessThanOrEqual(0.09);
  });

  it('is the same under a change of scale and offset, and reproducible from its seed', () => {
    const z = nights(3, 20, 0.05, 0.2, 8);
    const a = eDivisive(z, options(9));
    expect(
      eDivisive(
        z.map((x) => 3 * x + 40),
        options(9),
      ),
    ).toEqual(a.map((s) => ({ ...s, statistic: expect.any(Number) })));
    expect(eDivisive(z, options(9))).toEqual(a);
  });

  it('finds nothing in a constant series or one too short to split', () => {
    expect(eDivisive(Array(12).fill(5), options(1))).toEqual([]);
    expect(eDivisive([1, 2, 30, 40, 50], options(1))).toEqual([]);
  });
});
