import { createRng, normal, type Rng } from '../../src/rng.js';
import { drawPercentile, percentileShiftInterval } from '../../src/metrics/bootstrap.js';
import { bucketsOf, percentileOf } from '../../src/metrics/buckets.js';
import { normalQuantile, quantileOfSorted, wilson } from '../../src/metrics/stats.js';
import { newHistogram, recordMs, type Histogram } from '../../src/metrics/histogram.js';
import { cpuMs } from '../fixtures/cpu-time.js';

function histogramOf(rng: Rng, n: number, sample: (rng: Rng) => number): Histogram {
  const h = newHistogram();
  for (let i = 0; i < n; i++) recordMs(h, sample(rng));
  return h;
}
const lognormalMs = (median: number, sigma: number) => (rng: Rng) => median * Math.exp(sigma * normal(rng));

describe('buckets', () => {
  test('percentiles from the bucket arrays equal HdrHistogram getValueAtPercentile', () => {
    const h = histogramOf(createRng(1), 5000, lognormalMs(100, 0.7));
    const b = bucketsOf(h);
    expect(b.n).toBe(5000);
    for (const p of [1, 50, 90, 95, 99, 99.9, 100]) expect(percentileOf(b, p)).toBe(h.getValueAtPercentile(p) / 1000);
  });
});

describe('bootstrap of a percentile', () => {
  test('the Beta order-statistic draw has the distribution of a full multinomial resample', () => {
    const h = histogramOf(createRng(2), 200, lognormalMs(50, 0.5));
    const b = bucketsOf(h);
    const values = Array.from(b.values).flatMap((v, i) => Array<number>(b.counts[i]).fill(v));
    const rngA = createRng(3);
    const rngB = createRng(4);
    const iterations = 3000;
    const fast = Float64Array.from({ length: iterations }, () => drawPercentile(b, 90, rngA)).sort();
    const naive = Float64Array.from({ length: iterations }, () => {
      const resample = Float64Array.from({ length: values.length }, () => values[Math.floor(rngB.next() * values.length)]).sort();
      return resample[Math.ceil(0.9 * values.length) - 1];
    }).sort();
    for (const q of [0.05, 0.25, 0.5, 0.75, 0.95]) expect(quantileOfSorted(fast, q)).toBeCloseTo(quantileOfSorted(naive, q), 0);
  });

  test('calibrated: two samples of one distribution put the 95 % lower bound above 0 about 5 % of the time', () => {
    const rng = createRng(5);
    const pairs = 200;
    let falseRegressions = 0;
    for (let i = 0; i < pairs; i++) {
      const a = bucketsOf(histogramOf(rng, 400, lognormalMs(100, 0.8)));
      const b = bucketsOf(histogramOf(rng, 400, lognormalMs(100, 0.8)));
      if (percentileShiftInterval(a, b, 95, 0.95, 400, rng).lower > 0) falseRegressions++;
    }
    expect(falseRegressions / pairs).toBeGreaterThan(0.01);
    expect(falseRegressions / pairs).toBeLessThan(0.1);
  });

  test('a real 20 % shift is detected with 2,000 samples each', () => {
    const rng = createRng(6);
    const a = bucketsOf(histogramOf(rng, 2000, lognormalMs(100, 0.3)));
    const b = bucketsOf(histogramOf(rng, 2000, lognormalMs(120, 0.3)));
    const iv = percentileShiftInterval(a, b, 95, 0.95, 1000, rng);
    expect(iv.lower).toBeGreaterThan(15);
    expect(iv.upper).toBeLessThan(50);
  });

  test('1000 iterations on 100,000 samples take milliseconds', () => {
    const rng = createRng(7);
    const a = bucketsOf(histogramOf(rng, 100_000, lognormalMs(100, 0.5)));
    const start = cpuMs();
    percentileShiftInterval(a, a, 99, 0.95, 1000, rng);
    expect(cpuMs() - start).toBeLessThan(1000);
  });
});

describe('stats', () => {
  test('normal quantiles', () => {
    expect(normalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(normalQuantile(0.95)).toBeCloseTo(1.6448536, 6);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232, 5);
  });

  test('Wilson bounds stay in [0, 1] and bracket the observed share', () => {
    expect(wilson(0, 100, 1.645).lower).toBe(0);
    expect(wilson(0, 100, 1.645).upper).toBeCloseTo(0.0263, 3);
    const w = wilson(25, 50, 1.645);
    expect(w.lower).toBeLessThan(0.5);
    expect(w.upper).toBeGreaterThan(0.5);
  });
});
