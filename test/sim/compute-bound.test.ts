import { createRng } from '../../src/rng.js';
import { computeBoundEngine } from '../../src/sim/compute-bound.js';
import { validateSimConfig } from '../../src/sim/config.js';
import { saturationRate } from '../../src/sim/engine.js';
import { Jitter, lognormalFactor } from '../../src/sim/jitter.js';

test('a lognormal factor has mean 1 and the asked coefficient of variation', () => {
  const rng = createRng(3);
  const xs = Array.from({ length: 40_000 }, () => lognormalFactor(rng, 0.2));
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
  expect(Math.abs(mean - 1)).toBeLessThan(0.005);
  expect(Math.abs(sd / mean - 0.2)).toBeLessThan(0.01);
  expect(lognormalFactor(rng, 0)).toBe(1);
});

test('the run factor is drawn once from the seed: the same seed repeats it, another seed moves it', () => {
  const c = { step_cv: 0, request_cv: 0, run_cv: 0.1 };
  expect(new Jitter(c, 1).run).toBe(new Jitter(c, 1).run);
  const runs = Array.from({ length: 20 }, (_, s) => new Jitter(c, s).run);
  expect(new Set(runs).size).toBe(20);
  expect(Math.min(...runs)).toBeLessThan(0.97);
  expect(Math.max(...runs)).toBeGreaterThan(1.03);
  expect(new Jitter(c, 4).step()).toBe(new Jitter(c, 4).run); // no step noise: the step factor is the run's
});

test('the compute-bound preset: gap = base·(1 + α(n − 1)), concurrency 1 at about half of saturation', () => {
  const c = validateSimConfig({ preset: 'compute-bound' });
  expect(c.max_num_seqs).toBe(8);
  const gap = (n: number) => c.decode_base_ms + c.decode_ms_per_seq * n;
  expect(gap(1)).toBeCloseTo(3.5, 9);
  expect(gap(8)).toBeCloseTo(3.5 * (1 + (3 / 7) * 7), 9); // 14 ms: a full batch's gap is 4 lone gaps
  const sat = saturationRate(c, 128, 64);
  expect(sat).toBeCloseTo(7.35, 1);
  const x1 = 1000 / (128 * c.prefill_ms_per_token + 64 * gap(1));
  expect(sat / x1).toBeGreaterThan(1.6);
  expect(sat / x1).toBeLessThan(2.2);
  // A full batch: 64 gaps of 14 ms ≈ 0.9 s E2E at saturation.
  expect((64 * gap(8)) / 1000).toBeCloseTo(0.9, 1);
  // The config's own keys override the preset's; a time scale divides every compute time.
  expect(validateSimConfig({ preset: 'compute-bound', max_num_seqs: 4 }).max_num_seqs).toBe(4);
  expect(saturationRate(validateSimConfig(computeBoundEngine(10)), 128, 64)).toBeCloseTo(10 * sat, 6);
  expect(() => validateSimConfig({ preset: 'gpu' })).toThrow(/^sim config: preset is "gpu"; expected one of compute-bound$/);
});
