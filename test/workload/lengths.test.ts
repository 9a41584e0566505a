import { createRng } from '../../src/rng.js';
import { lengthSampler, lognormalParams, parseLengthFile, type LengthSource } from '../../src/workload/lengths.js';

const N = 20_000;
const draw = (d: LengthSource, n = N, seed = 5) => {
  const rng = createRng(seed);
  const sample = lengthSampler(d);
  return Array.from({ length: n }, () => sample(rng));
};
const stats = (xs: number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { mean, sd: Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length), min: Math.min(...xs), max: Math.max(...xs) };
};

/** Φ by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): enough for a KS distance of ~0.01. */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/**
 * Kolmogorov–Smirnov distance between integer samples and a continuous CDF, with the rounding
 * accounted for: P(sample ≤ k) = F(k + 0.5).
 */
function ksDistance(xs: number[], cdf: (x: number) => number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  let d = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (i + 1 < sorted.length && sorted[i + 1] === sorted[i]) continue;
    d = Math.max(d, Math.abs((i + 1) / sorted.length - cdf(sorted[i] + 0.5)));
  }
  return d;
}
/** The KS critical distance at α = 0.001 (1.95/√n): a correct sampler fails it once in a thousand seeds. */
const KS_CRITICAL = 1.95 / Math.sqrt(N);

describe('length distributions match their parameters', () => {
  test('fixed is fixed', () => {
    expect(new Set(draw({ dist: 'fixed', value: 128 }, 100))).toEqual(new Set([128]));
  });

  test('uniform covers [min, max] inclusively with the right mean', () => {
    const s = stats(draw({ dist: 'uniform', min: 10, max: 20 }));
    expect(s).toMatchObject({ min: 10, max: 20 });
    expect(s.mean).toBeCloseTo(15, 1);
  });

  test('uniform with range_ratio covers [mean·(1 − r), mean·(1 + r)] as vLLM does', () => {
    const xs = draw({ dist: 'uniform', mean: 1000, range_ratio: 0.2 });
    const s = stats(xs);
    expect(s).toMatchObject({ min: 800, max: 1200 });
    expect(Math.abs(s.mean - 1000)).toBeLessThan(3);
    // Uniform on 401 integers: sd = √((401² − 1)/12) ≈ 115.8.
    expect(Math.abs(s.sd - 115.8)).toBeLessThan(2);
    expect(new Set(draw({ dist: 'uniform', mean: 100, range_ratio: 0 }, 50))).toEqual(new Set([100]));
  });

  test('normal has its mean and stddev (KS) and respects clipping', () => {
    const xs = draw({ dist: 'normal', mean: 800, stddev: 300 });
    const s = stats(xs);
    expect(Math.abs(s.mean - 800)).toBeLessThan(8);
    expect(Math.abs(s.sd - 300)).toBeLessThan(8);
    // Clipped to ≥ 1 below; at 800 ± 300 that tail is 0.4 %, far inside the KS bound.
    expect(ksDistance(xs, (x) => normalCdf((x - 800) / 300))).toBeLessThan(KS_CRITICAL);
    const c = stats(draw({ dist: 'normal', mean: 100, stddev: 50, min: 80, max: 120 }));
    expect(c).toMatchObject({ min: 80, max: 120 });
  });

  test('lognormal given as the mean and stddev of the lengths has that mean and stddev, and passes KS', () => {
    const xs = draw({ dist: 'lognormal', mean: 800, stddev: 300 });
    const s = stats(xs);
    expect(Math.abs(s.mean / 800 - 1)).toBeLessThan(0.01);
    expect(Math.abs(s.sd / 300 - 1)).toBeLessThan(0.03);
    const { mu, sigma } = lognormalParams(800, 300);
    expect(ksDistance(xs, (x) => normalCdf((Math.log(x) - mu) / sigma))).toBeLessThan(KS_CRITICAL);
    // Right-skewed: the median is below the mean, as in real prompt logs.
    expect([...xs].sort((a, b) => a - b)[N / 2]).toBeLessThan(780);
  });

  test('lognormal conversion: σ² = ln(1 + s²/m²), μ = ln m − σ²/2', () => {
    const { mu, sigma } = lognormalParams(100, 100);
    expect(sigma).toBeCloseTo(Math.sqrt(Math.log(2)), 12);
    expect(mu).toBeCloseTo(Math.log(100) - Math.log(2) / 2, 12);
    const c = stats(draw({ dist: 'lognormal', mean: 100, stddev: 100, min: 20, max: 300 }));
    expect(c).toMatchObject({ min: 20, max: 300 });
  });

  test('empirical values are drawn in proportion to their weights', () => {
    const xs = draw({ dist: 'empirical', values: [50, 200, 1000], weights: [6, 3, 1] });
    const share = (v: number) => xs.filter((x) => x === v).length / N;
    // Binomial standard error at p = 0.6 and n = 20,000 is 0.0035; allow four of them.
    expect(Math.abs(share(50) - 0.6)).toBeLessThan(0.014);
    expect(Math.abs(share(200) - 0.3)).toBeLessThan(0.013);
    expect(Math.abs(share(1000) - 0.1)).toBeLessThan(0.009);
    expect(new Set(xs)).toEqual(new Set([50, 200, 1000]));
    const equal = draw({ dist: 'empirical', values: [7, 9] });
    expect(Math.abs(equal.filter((x) => x === 7).length / N - 0.5)).toBeLessThan(0.015);
  });

  test('a weight of 0 is never drawn', () => {
    expect(new Set(draw({ dist: 'empirical', values: [1, 2, 3], weights: [1, 0, 1] }, 5000))).toEqual(new Set([1, 3]));
  });

  test('every sample is an integer ≥ 1', () => {
    for (const d of [
      { dist: 'normal', mean: 2, stddev: 10 },
      { dist: 'lognormal', mean: 1.2, stddev: 3 },
    ] as LengthSource[]) {
      for (const x of draw(d, 2000)) {
        expect(Number.isInteger(x)).toBe(true);
        expect(x).toBeGreaterThanOrEqual(1);
      }
    }
  });

  test('the same seed gives the same samples, another seed others', () => {
    const all: LengthSource[] = [
      { dist: 'uniform', mean: 500, range_ratio: 0.5 },
      { dist: 'normal', mean: 500, stddev: 100 },
      { dist: 'lognormal', mean: 500, stddev: 200 },
      { dist: 'empirical', values: [1, 10, 100, 1000] },
    ];
    for (const d of all) {
      expect(draw(d, 200, 9)).toEqual(draw(d, 200, 9));
      expect(draw(d, 200, 9)).not.toEqual(draw(d, 200, 10));
    }
  });
});

describe('length files', () => {
  test('a JSON list of lengths, or of [length, count] pairs', () => {
    expect(parseLengthFile('[120, 340, 120]', 'l.json')).toEqual({ values: [120, 340, 120], weights: [1, 1, 1] });
    expect(parseLengthFile('[[100, 5], [200, 0.5]]', 'h.json')).toEqual({ values: [100, 200], weights: [5, 0.5] });
  });

  test('CSV or text: one length or length,count per line; header, comments and blank lines skipped', () => {
    expect(parseLengthFile('# lengths\nlength,count\n16,3\n\n32\t1\n64 2  # trailing comment\n', 'h.csv')).toEqual({
      values: [16, 32, 64],
      weights: [3, 1, 2],
    });
    expect(parseLengthFile('\uFEFF100\n200\n', 'plain.txt')).toEqual({ values: [100, 200], weights: [1, 1] });
  });

  test('the shipped example histogram parses', async () => {
    const { readFileSync } = await import('node:fs');
    const h = parseLengthFile(
      readFileSync(new URL('../../examples/data/output-lengths.csv', import.meta.url), 'utf8'),
      'output-lengths.csv',
    );
    expect(h.values).toEqual([16, 32, 64, 128, 192, 256, 384, 512, 768, 1024]);
    expect(h.weights.reduce((a, b) => a + b, 0)).toBe(1000);
  });

  test.each([
    ['100\nabc\n', 'lengths.csv:2: text is not a length; expected a positive integer of at most 2,000,000'],
    ['100\nOPENAI_API_KEY=sk-live-abc\n', 'lengths.csv:2: text is not a length; expected a positive integer of at most 2,000,000'],
    ['100\n0\n', 'lengths.csv:2: 0 is not a length; expected a positive integer of at most 2,000,000'],
    ['100\n1000000000000\n', 'lengths.csv:2: 1000000000000 is not a length; expected a positive integer of at most 2,000,000'],
    ['[1, "sk-live-abc"]', 'lengths.csv: entry 2: text is not a length; expected a positive integer of at most 2,000,000'],
    ['100,-1\n', 'lengths.csv:1: the count -1 is not a number ≥ 0; expected length,count'],
    ['1,2,3\n', 'lengths.csv:1: 3 fields; expected a length, or length,count'],
    ['[1, 2.5]', 'lengths.csv: entry 2: 2.5 is not a length; expected a positive integer of at most 2,000,000'],
    // The parser's own words differ between Node versions.
    ['[1, 2', /^lengths\.csv: not valid JSON \(.+\); expected a list of lengths or of \[length, count\] pairs$/],
    ['# nothing\n', 'lengths.csv: holds no lengths; expected at least one'],
    ['10,0\n20,0\n', 'lengths.csv: every count is 0; expected at least one count > 0'],
  ] as [string, string | RegExp][])('%j is one line naming the file and line', (text, message) => {
    expect(() => parseLengthFile(text, 'lengths.csv')).toThrow(message);
  });
});
