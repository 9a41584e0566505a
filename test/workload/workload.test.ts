import { createRng } from '../../src/arrivals/rng.js';
import { sampleLength } from '../../src/workload/lengths.js';
import { createWorkload } from '../../src/workload/workload.js';
import type { Spec } from '../../src/spec/types.js';

const stats = (xs: number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return { mean, sd: Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length), min: Math.min(...xs), max: Math.max(...xs) };
};

describe('length distributions', () => {
  const draw = (d: Parameters<typeof sampleLength>[0], n = 20_000) => {
    const rng = createRng(5);
    return Array.from({ length: n }, () => sampleLength(d, rng));
  };

  test('fixed is fixed', () => {
    expect(new Set(draw({ dist: 'fixed', value: 128 }, 100))).toEqual(new Set([128]));
  });

  test('uniform covers [min, max] inclusively with the right mean', () => {
    const s = stats(draw({ dist: 'uniform', min: 10, max: 20 }));
    expect(s.min).toBe(10);
    expect(s.max).toBe(20);
    expect(s.mean).toBeCloseTo(15, 1);
  });

  test('normal has its mean and stddev and respects clipping', () => {
    const s = stats(draw({ dist: 'normal', mean: 800, stddev: 300 }));
    expect(Math.abs(s.mean - 800)).toBeLessThan(8);
    expect(Math.abs(s.sd - 300)).toBeLessThan(8);
    const c = stats(draw({ dist: 'normal', mean: 100, stddev: 50, min: 80, max: 120 }));
    expect(c.min).toBe(80);
    expect(c.max).toBe(120);
  });

  test('every sample is an integer ≥ 1', () => {
    for (const x of draw({ dist: 'normal', mean: 2, stddev: 10 }, 2000)) {
      expect(Number.isInteger(x)).toBe(true);
      expect(x).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('workload', () => {
  const w: Spec['workload'] = { seed: 3, input_tokens: { dist: 'uniform', min: 5, max: 50 }, output_tokens: { dist: 'normal', mean: 30, stddev: 5 }, ignore_eos: true };

  test('the same seed gives the same requests', () => {
    const a = createWorkload(w);
    const b = createWorkload(w);
    for (let i = 0; i < 50; i++) expect(a.next(i)).toEqual(b.next(i));
  });

  test('prompts have exactly the requested number of words and unique first words', () => {
    const wl = createWorkload(w);
    const firsts = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const item = wl.next(i);
      const words = item.prompt.split(/\s+/);
      expect(words).toHaveLength(item.promptTokens);
      firsts.add(words[0]!);
    }
    expect(firsts.size).toBe(200);
  });

  test('input and output lengths come from independent streams', () => {
    const other = createWorkload({ ...w, input_tokens: { dist: 'fixed', value: 7 } });
    const base = createWorkload(w);
    for (let i = 0; i < 20; i++) expect(other.next(i).maxTokens).toBe(base.next(i).maxTokens);
  });
});
