import { parseSpec } from '../../src/spec/load.js';
import { shardSpec } from '../../src/run/shard.js';
import { loadPlan } from '../../src/arrivals/load-plan.js';
import { rateAt } from '../../src/arrivals/curve.js';

const spec = (load: string, gate = '') => parseSpec(`target: { url: sim }\nload: { steady: 30s, ${load} }\n${gate}`, 'p.yml', {});
const error = (load: string, gate = '') => {
  try {
    spec(load, gate);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('no error');
};

describe('load patterns in the spec', () => {
  test('each kind resolves with its durations in ms; a spec without them keeps its hash', () => {
    expect(spec('ramp_up: 5s, pattern: { kind: spike, multiplier: 3, at: 10s, for: 5s }')).toMatchObject({
      rampUpMs: 5000,
      pattern: { kind: 'spike', multiplier: 3, atMs: 10_000, forMs: 5000 },
    });
    expect(spec('pattern: { kind: ramp, from: 1, to: 50, over: 30s }').pattern).toEqual({
      kind: 'ramp',
      from: 1,
      to: 50,
      overMs: 30_000,
      slices: 10,
    });
    expect(spec('pattern: { kind: steps, rates: [5, 10, 20], each: 10s }').pattern).toEqual({
      kind: 'steps',
      rates: [5, 10, 20],
      eachMs: 10_000,
    });
    expect(spec('soak: { segments: 6 }').pattern).toEqual({ kind: 'soak', segments: 6 });
    expect(spec('abort: { max_error_rate: 0.5 }').abort).toEqual({
      maxErrorRate: 0.5,
      windowMs: 10_000,
      overSaturation: false,
      fail: false,
    });
    expect(spec('rate: 10').hash).toBe(parseSpec('target: { url: sim }\nload: { steady: 30s, rate: 10 }\n', 'q.yml', {}).hash);
    expect(spec('rate: 10').spec.load).not.toHaveProperty('pattern');
  });

  test.each([
    [
      'pattern: { kind: spike, multiplier: 3, at: 25s, for: 10s }',
      'p.yml: load.pattern.for ends the spike at 35s (at + for), past the steady window (load.steady 30s); expected at + for ≤ load.steady',
    ],
    [
      'pattern: { kind: spike, multiplier: 3, at: 0s, for: 10s }',
      'p.yml: load.pattern.at is "0s"; expected a time > 0 into the window, so the pre-spike level is measured',
    ],
    ['pattern: { kind: ramp, from: -5, to: 10, over: 10s }', 'p.yml: load.pattern.from is -5; expected a rate in req/s ≥ 0'],
    ['pattern: { kind: steps, rates: [5, -1], each: 10s }', 'p.yml: load.pattern.rates.1 is -1; expected a rate in req/s ≥ 0'],
    [
      'pattern: { kind: steps, rates: [5, 10, 20, 40], each: 10s }',
      'p.yml: load.pattern.rates lasts 40s (4 × each), longer than the steady window (load.steady 30s); expected ≤ load.steady',
    ],
    [
      'pattern: { kind: ramp, from: 1, to: 10, over: 1m }',
      'p.yml: load.pattern.over is 60s, longer than the steady window (load.steady 30s); expected over ≤ load.steady',
    ],
    [
      'pattern: { kind: ramp, from: 0, to: 0, over: 10s }',
      'p.yml: load.pattern.to is 0 like from, so the ramp sends nothing; expected a rate > 0',
    ],
    ['pattern: { kind: wave }', 'p.yml: load.pattern.kind is "wave"; expected one of ramp, spike, steps'],
    [
      'pattern: { kind: spike, at: 5s, for: 1s }',
      'p.yml: load.pattern.multiplier is missing; expected a number > 0 (the spike rate is multiplier × load.rate)',
    ],
    [
      'pattern: { kind: spike, multiplier: 2, at: 5s, for: 1s, over: 3s }',
      'p.yml: load.pattern.over is not a known key; expected one of kind, multiplier, at, for',
    ],
    ['ramp_up: soon', 'p.yml: load.ramp_up "soon" is not a duration; expected e.g. 500ms, 30s, 5m, 1m30s'],
    [
      'mode: closed, ramp_up: 10s',
      'p.yml: load.ramp_up is given with mode: closed; expected mode: open (a rate curve needs an open-loop arrival schedule)',
    ],
    [
      'soak: { segments: 4 }, pattern: { kind: ramp, from: 1, to: 2, over: 5s }',
      'p.yml: load.soak is given with load.pattern; expected one or the other (a soak is a steady rate judged in segments)',
    ],
    ['soak: { segments: 1 }', 'p.yml: load.soak.segments is 1; expected an integer from 2 to 100'],
    ['abort: { window: 5s }', 'p.yml: load.abort has neither max_error_rate nor over_saturation: true; expected at least one of them'],
    ['abort: { max_error_rate: 1.5 }', 'p.yml: load.abort.max_error_rate is 1.5; expected a fraction > 0 and ≤ 1'],
  ])('%s → one line', (load, message) => {
    const m = error(load);
    expect(m).toBe(message);
    expect(m).not.toContain('\n');
  });

  test('gate pattern rules are checked like every gate rule', () => {
    expect(spec('rate: 5', 'gate: { spike: { max_recovery_s: 30 }, soak: { max_drift_pct: 10 } }').spec.gate).toMatchObject({
      spike: { max_recovery_s: 30, warn_only: false, enabled: true },
      soak: { max_drift_pct: 10 },
    });
    expect(error('rate: 5', 'gate: { spike: { max_recovery_s: -1 } }')).toBe(
      'p.yml: gate.spike.max_recovery_s is -1; expected a number ≥ 0',
    );
  });
});

describe('shards split a curve as they split a rate', () => {
  test('each of n shards runs λ(t)/n, ramp and step rates included', () => {
    for (const load of [
      'rate: 30, ramp_up: 5s, pattern: { kind: spike, multiplier: 3, at: 10s, for: 5s }',
      'rate: 30, pattern: { kind: ramp, from: 3, to: 60, over: 20s }',
      'rate: 30, pattern: { kind: steps, rates: [6, 12, 30], each: 10s }',
    ]) {
      const whole = spec(load);
      const full = loadPlan(whole);
      const shards = [0, 1, 2].map((k) => loadPlan(shardSpec(whole, k, 3)));
      for (const t of [1000, 4000, 9000, 12_000, 17_000, 22_000, 31_000, 40_000]) {
        const sum = shards.reduce((a, p) => a + rateAt(p.curve, t), 0);
        expect(sum).toBeCloseTo(rateAt(full.curve, t), 6);
      }
      expect(shards[0].phases.map((p) => p.name)).toEqual(full.phases.map((p) => p.name));
    }
  });
});
