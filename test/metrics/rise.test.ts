import { createRng, normal, type Rng } from '../../src/rng.js';
import { bucketsOf } from '../../src/metrics/buckets.js';
import { newHistogram, recordMs, type Histogram } from '../../src/metrics/histogram.js';
import { percentileRise, riseReason, segmentDrift, type RiseInput } from '../../src/metrics/rise.js';

function histogramOf(rng: Rng, n: number, medianMs: number): Histogram {
  const h = newHistogram();
  for (let i = 0; i < n; i++) recordMs(h, medianMs * Math.exp(0.3 * normal(rng)));
  return h;
}

const judge = (before: Histogram, after: Histogram, o: Partial<RiseInput> = {}) =>
  percentileRise({
    before: bucketsOf(before),
    after: bucketsOf(after),
    p: 95,
    pct: 10,
    floorMs: 1,
    minTail: 10,
    confidence: 0.95,
    iterations: 500,
    rng: createRng(7),
    ...o,
  });

describe('the percentile-rise test', () => {
  test('a 50 % rise of the median is beyond a 10 % allowance and its noise; the threshold is max(pct · before, floor)', () => {
    const r = judge(histogramOf(createRng(1), 3000, 100), histogramOf(createRng(2), 3000, 150));
    expect(r.status).toBe('judged');
    if (r.status !== 'judged') return;
    expect(r.rise).toBe('beyond');
    expect(r.threshold).toBeCloseTo(Math.max(0.1 * r.before, 1), 9);
    expect(r.change.abs).toBeCloseTo(r.after - r.before, 9);
    expect(r.ci.lower).toBeGreaterThan(r.threshold);
  });

  test('two draws of one distribution do not rise', () => {
    const r = judge(histogramOf(createRng(3), 3000, 100), histogramOf(createRng(4), 3000, 100));
    expect(r.status === 'judged' && r.rise).toBe('within');
  });

  test('a rise past the threshold whose lower bound is not stays within noise; widening the interval can only make it so', () => {
    const before = histogramOf(createRng(5), 3000, 100);
    const after = histogramOf(createRng(6), 3000, 115);
    const plain = judge(before, after, { pct: 5 });
    const wide = judge(before, after, { pct: 5, widen: () => 100 });
    expect(plain.status === 'judged' && plain.rise).toBe('beyond');
    expect(wide.status === 'judged' && wide.rise).toBe('noise');
    if (plain.status === 'judged' && wide.status === 'judged') expect(wide.ci.lower).toBeLessThan(plain.ci.lower);
  });

  test('too few tail samples, or none, is not judged', () => {
    const few = judge(histogramOf(createRng(8), 50, 100), histogramOf(createRng(9), 3000, 200));
    expect(few.status).toBe('too-few');
    if (few.status === 'too-few') expect(few.n).toEqual([50, 3000]);
    const none = percentileRise({ ...({} as RiseInput), before: bucketsOf(histogramOf(createRng(1), 10, 1)), after: null, p: 95 });
    expect(none).toMatchObject({ status: 'no-samples', missing: 'after', after: null });
  });

  test('its wording: the lower bound when beyond, the noise when within it, what would have been caught when given', () => {
    const w = { moved: 'rose 5 ms', bound: 'the lower bound', lower: '3 ms' };
    expect(riseReason('beyond', { ...w, noise: 'n' })).toBe('rose 5 ms; the lower bound 3 ms is beyond it too; n');
    expect(riseReason('noise', { ...w, caught: 'c' })).toBe('rose 5 ms, but within noise: the lower bound is 3 ms — c');
    expect(riseReason('within', w)).toBe('rose 5 ms');
  });
});

describe('soak drift between two segments', () => {
  const drift = (first: Histogram, last: Histogram) =>
    segmentDrift({ first, last, p: 95, pct: 10, floorMs: 1, minTail: 10, confidence: 0.95, iterations: 500, id: 'ttft_p95' });

  test('drift when the last segment rose beyond the allowance and noise, with the figures rounded to the µs', () => {
    const d = drift(histogramOf(createRng(11), 3000, 100), histogramOf(createRng(12), 3000, 160));
    expect(d.verdict).toBe('drift');
    expect(d.reason).toMatch(/^rose [\d.]+ ms, allowed [\d.]+ ms; the lower bound [\d.]+ ms is beyond it too$/);
    expect(d.bound).toBe(Math.round(Math.max(0.1 * d.first!, 1) * 1000) / 1000);
  });

  test('none for a steady soak; inconclusive for an empty segment; the same inputs give the same interval', () => {
    const a = histogramOf(createRng(13), 3000, 100);
    const b = histogramOf(createRng(14), 3000, 100);
    expect(drift(a, b).verdict).toBe('none');
    expect(drift(a, b).ci).toEqual(drift(a, b).ci);
    expect(drift(a, newHistogram())).toMatchObject({ verdict: 'inconclusive', reason: 'no samples in the first or the last segment' });
  });
});
