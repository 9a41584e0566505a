import { measuredCalibration } from './calibration-fixture.js';
import { compare } from '../../src/gate/compare.js';
import { defaultGate, gateOf, resolveGate, type GateSpec } from '../../src/spec/gate-schema.js';
import type { GateReport, RuleOutcome } from '../../src/gate/types.js';
import { mergeResults } from '../../src/result/merge.js';
import { parseResult } from '../../src/result/load.js';
import type { Result } from '../../src/result/types.js';
import { specHash } from '../../src/spec/hash.js';
import { lognormal, synthesize, type Synth } from '../result/synthetic.js';

/** A run judged on its own (no baseline), as `loadgate run` does without --baseline. */
const evaluate = (r: Result, gate: GateSpec = gateOf(r.spec)) => compare(null, r, gate);

const rule = (report: GateReport, id: string): RuleOutcome => {
  const found = report.rules.find((r) => r.id === id);
  if (!found) throw new Error(`no rule ${id} in ${report.rules.map((r) => r.id).join(', ')}`);
  return found;
};

const made = new Map<string, Result>();
/** Memoized: several tests judge the same synthetic runs (results are never mutated by compare). */
function run(key: string, o: Synth): Result {
  if (!made.has(key)) made.set(key, synthesize(o));
  return made.get(key)!;
}

/** Baseline and current from the same draws, the current's TTFT scaled: an exact, known shift. */
function shifted(medianMs: number, factor: number, extra: Synth = {}): [Result, Result] {
  const ttft = lognormal(medianMs, 0.2);
  const tag = JSON.stringify([medianMs, extra]);
  return [
    run(`${tag} base`, { n: 2000, ttft, ...extra }),
    run(`${tag} ×${factor}`, { n: 2000, ttft: (rng) => ttft(rng) * factor, ...extra }),
  ];
}

const neverPassesWithoutData = (report: GateReport) => {
  for (const r of report.rules) if (r.current === null) expect(r.status).not.toBe('pass');
};

describe('relative latency rules (TTFT p95: 10 %, floor what the runs resolve)', () => {
  test('a 50 % rise of ~15 ms on a 30 ms p95 passes under a fixed 20 ms floor, and fails under the floor the runs resolve', () => {
    const [base, cur] = shifted(21.6, 1.5);
    const fixed = compare(base, cur, resolveGate({ latency: { ttft_p95: { max_increase_ms: 20 } } }));
    const ttft = rule(fixed, 'latency.ttft_p95');
    expect(ttft.baseline!).toBeGreaterThan(27);
    expect(ttft.baseline!).toBeLessThan(33);
    expect(ttft.change!.rel!).toBeCloseTo(0.5, 1);
    expect(ttft.change!.abs).toBeLessThan(17);
    expect(ttft.threshold).toBe(20);
    expect(ttft.status).toBe('pass');
    // The default: 4 × the runs' timestamp error bound (under 1 ms here) plus the histogram's
    // resolution, so 10 % of the baseline decides and the 50 % rise fails, beyond the assumed
    // between-run spread of two single runs too (10 % each: the bound must clear about +33 %).
    const report = compare(base, cur, defaultGate());
    const derived = rule(report, 'latency.ttft_p95');
    expect(derived.threshold!).toBeLessThan(5);
    expect(derived.threshold!).toBeGreaterThanOrEqual(0.1 * derived.baseline!);
    expect(derived.limit).toMatch(
      /^may rise ≤ 10 % or [\d.]+ ms \(what the runs resolve: 4 × the larger timestamp error bound [\d.]+ ms, plus the histogram's resolution\), whichever is larger$/,
    );
    expect(derived.status).toBe('fail');
    expect(report.verdict).toBe('fail');
  });

  test('a 50 % and ~170 ms rise on a ~335 ms p95 fails, with its numbers', () => {
    const [base, cur] = shifted(240, 1.5);
    const report = compare(base, cur, defaultGate());
    const ttft = rule(report, 'latency.ttft_p95');
    expect(ttft.status).toBe('fail');
    expect(ttft.change!.abs).toBeGreaterThan(150);
    expect(ttft.threshold!).toBeCloseTo(0.1 * ttft.baseline!, 6);
    expect(ttft.ci!.lower).toBeGreaterThan(ttft.threshold!);
    expect(ttft.ci!.lower).toBeLessThan(ttft.change!.abs);
    expect(ttft.ci!.upper).toBeGreaterThan(ttft.change!.abs);
    expect(report.verdict).toBe('fail');
    expect(report.reasons[0]).toMatch(
      /^TTFT p95 may rise ≤ 10 % or [\d.]+ ms \(what the runs resolve: .*\), whichever is larger: rose \+\d+(\.\d+)? ms/,
    );
  });

  test('an identical distribution passes every rule', () => {
    const [base] = shifted(240, 1);
    const report = compare(base, synthesize({ n: 2000, ttft: lognormal(240, 0.2) }), defaultGate());
    expect(report.verdict).toBe('pass');
    expect(report.rules.every((r) => r.status === 'pass')).toBe(true);
    expect(rule(report, 'latency.ttft_p95').change!.abs).toBe(0);
  });

  test('a 2 % shift with little noise passes', () => {
    const [base, cur] = shifted(240, 1.02);
    const report = compare(base, cur, defaultGate());
    expect(rule(report, 'latency.ttft_p95').status).toBe('pass');
    expect(report.verdict).toBe('pass');
  });

  test('the noise test: few samples from one distribution do not fail even when the point estimate crosses the threshold', () => {
    const gate = resolveGate({ slo: { goodput_fraction: { enabled: false } } });
    const heavy = lognormal(30, 1);
    const base = synthesize({ n: 250, seed: 1, ttft: heavy });
    let crossed: RuleOutcome | undefined;
    for (let seed = 2; seed < 60 && !crossed; seed++) {
      const report = compare(base, synthesize({ n: 250, seed, ttft: heavy }), gate);
      const ttft = rule(report, 'latency.ttft_p95');
      if (ttft.change!.abs > ttft.threshold!) {
        crossed = ttft;
        expect(ttft.status).toBe('pass');
        expect(ttft.reason).toMatch(/within noise/);
        expect(report.verdict).not.toBe('fail');
      }
    }
    expect(crossed).toBeDefined();
  });

  test('too few samples for the percentile is inconclusive, not pass', () => {
    const base = synthesize({ n: 150 });
    const report = compare(base, synthesize({ n: 150, seed: 2 }), defaultGate());
    const ttft = rule(report, 'latency.ttft_p95');
    expect(ttft.status).toBe('inconclusive');
    expect(ttft.reason).toBe('too few samples for p95: needs ≥ 200 in each run (baseline 150, current 150)');
    expect(report.verdict).toBe('inconclusive');
  });

  test('a 15 % rise between two single runs is within their assumed between-run spread; a calibration that measured a small one catches it', () => {
    const [base, cur] = shifted(240, 1.15);
    const single = rule(compare(base, cur, defaultGate()), 'latency.ttft_p95');
    expect(single.change!.rel!).toBeCloseTo(0.15, 1);
    expect(single.status).toBe('pass');
    expect(single.noise).toMatchObject({ between_run_cv: 0.1, source: expect.arrayContaining(['bootstrap', 'assumed']) });
    expect(single.reason).toMatch(
      /within noise: .*assumed between-run CV 10(\.0+)? % \(gate\.noise\.assumed_cv: no replicates or calibration measured it\)/,
    );
    // With nothing assumed the bootstrap alone decides: the same rise fails.
    expect(rule(compare(base, cur, resolveGate({ noise: { assumed_cv: 0 } })), 'latency.ttft_p95').status).toBe('fail');
    const calibration = measuredCalibration(base.spec_hash, { 'ttft_ms.p95': 0.01 });
    const measured = rule(compare(base, cur, defaultGate(), { calibration }), 'latency.ttft_p95');
    expect(measured.noise).toMatchObject({ between_run_cv: 0.01, source: expect.arrayContaining(['bootstrap', 'calibration']) });
    expect(measured.noise!.source).not.toContain('assumed');
    expect(measured.status).toBe('fail');
  });

  test('warn_only reports the regression without failing the verdict', () => {
    const [base, cur] = shifted(21.6, 1.5);
    const report = compare(base, cur, resolveGate({ latency: { ttft_p95: { warn_only: true } } }));
    expect(rule(report, 'latency.ttft_p95').status).toBe('warn');
    expect(report.rules.filter((r) => r.status !== 'pass').map((r) => r.id)).toEqual(['latency.ttft_p95']);
    expect(report.verdict).toBe('pass');
    expect(report.reasons.some((r) => r.startsWith('warning (warn_only): TTFT p95'))).toBe(true);
  });

  test('replicate spread widens the interval: the same shift within a noisy metric no longer fails', () => {
    const [base, cur] = shifted(240, 1.15);
    const noisy: Result = { ...cur, replicates: { count: 2, cv: { 'ttft_ms.p95': 0.2 } } };
    const plain = rule(compare(base, cur, defaultGate()), 'latency.ttft_p95');
    // gate.max_cv raised so that only the widening is under test (a CV of 20 % is unstable by default).
    const widened = rule(compare(base, noisy, resolveGate({ max_cv: 0.5 })), 'latency.ttft_p95');
    expect(widened.ci!.lower).toBeLessThan(plain.ci!.lower - 50);
    expect(widened.status).toBe('pass');
    expect(rule(compare(base, noisy, defaultGate()), 'latency.ttft_p95').reason).toMatch(/^the environment is unstable for TTFT p95: /);
  });

  test('custom percentile rules from the gate are judged', () => {
    const [base, cur] = shifted(240, 1.15);
    const report = compare(base, cur, resolveGate({ latency: { ttft_p50: { max_increase_pct: 50, max_increase_ms: 0 } } }));
    expect(rule(report, 'latency.ttft_p50').status).toBe('pass');
    expect(report.rules.map((r) => r.id).slice(0, 2)).toEqual(['latency.ttft_p50', 'latency.ttft_p95']);
  });

  test('the verdict is reproducible: same seed, same intervals', () => {
    const [base, cur] = shifted(240, 1.1);
    expect(compare(base, cur, defaultGate()).rules).toEqual(compare(base, cur, defaultGate()).rules);
  });
});

describe('throughput and error-rate rules', () => {
  const only = resolveGate({ error_rate: { enabled: false }, slo: { goodput_fraction: { enabled: false } } });
  const failingEvery = (k: number) => (i: number) => (i % k === 0 ? 'http_4xx' : 'ok');

  test('output tokens/s may fall 5 %: a 3 % fall passes, a 10 % fall fails', () => {
    const base = synthesize({ n: 2000 });
    const small = rule(compare(base, synthesize({ n: 2000, outcome: failingEvery(33) }), only), 'throughput.output_tokens_per_s');
    expect(small.change!.rel!).toBeCloseTo(-0.0305, 3);
    expect(small.status).toBe('pass');
    const large = compare(base, synthesize({ n: 2000, outcome: failingEvery(10) }), only);
    const tokens = rule(large, 'throughput.output_tokens_per_s');
    expect(tokens.change!.rel!).toBeCloseTo(-0.1, 2); // requests ending after the window shift it slightly
    expect(tokens.ci!.upper).toBeLessThan(tokens.threshold!);
    expect(tokens.status).toBe('fail');
    expect(large.verdict).toBe('fail');
  });

  test('a current run with no output at all fails the throughput rule', () => {
    const report = compare(synthesize({ n: 500 }), synthesize({ n: 500, outcome: () => 'timeout' }), only);
    expect(rule(report, 'throughput.output_tokens_per_s').status).toBe('fail');
  });

  test('error rate may rise 1 pp: +3 pp fails, +0.5 pp passes', () => {
    const gate = resolveGate({
      slo: { http_5xx_rate: { enabled: false }, goodput_fraction: { enabled: false } },
      throughput: { output_tokens_per_s: { enabled: false } },
    });
    const base = synthesize({ n: 2000 });
    const up3 = rule(compare(base, synthesize({ n: 2000, outcome: (i) => (i % 100 < 3 ? 'http_5xx' : 'ok') }), gate), 'error_rate');
    expect(up3.change!.abs).toBeCloseTo(0.03, 6);
    expect(up3.ci!.lower).toBeGreaterThan(0.01);
    expect(up3.status).toBe('fail');
    const up05 = rule(compare(base, synthesize({ n: 2000, outcome: (i) => (i % 200 === 0 ? 'http_5xx' : 'ok') }), gate), 'error_rate');
    expect(up05.status).toBe('pass');
  });
});

describe('absolute SLO rules (no baseline)', () => {
  test('without a baseline only absolute rules are judged and the report says so', () => {
    const report = compare(null, synthesize({ n: 500 }), defaultGate());
    expect(report.has_baseline).toBe(false);
    expect(report.rules.every((r) => r.kind === 'slo')).toBe(true);
    expect(report.rules.map((r) => r.id)).toEqual(['slo.ttft_p95', 'slo.http_5xx_rate', 'slo.http_429_rate', 'slo.goodput_fraction']);
    expect(report.verdict).toBe('pass');
    expect(report.reasons).toContain('no baseline: only absolute (SLO) rules were judged');
  });

  test('TTFT p95 above 500 ms fails', () => {
    const report = evaluate(
      synthesize({ n: 500, ttft: lognormal(400, 0.2) }),
      resolveGate({ slo: { goodput_fraction: { enabled: false } } }),
    );
    const ttft = rule(report, 'slo.ttft_p95');
    expect(ttft.status).toBe('fail');
    expect(ttft.reason).toMatch(/^\d+ ms exceeds the 500 ms limit \(500 samples\)$/);
    expect(report.verdict).toBe('fail');
  });

  test('the TTFT SLO defaults to the spec slo.ttft_ms', () => {
    expect(resolveGate(undefined, { ttft_ms: 300 }).slo.ttft_p95!.max_ms).toBe(300);
    expect(resolveGate({ slo: { ttft_p95: { max_ms: 250 } } }, { ttft_ms: 300 }).slo.ttft_p95!.max_ms).toBe(250);
  });

  test('429 rate above 5 % and goodput below 99 % fail', () => {
    const report = evaluate(synthesize({ n: 1000, outcome: (i) => (i % 100 < 6 ? 'http_429' : 'ok') }));
    expect(rule(report, 'slo.http_429_rate').status).toBe('fail');
    expect(rule(report, 'slo.http_429_rate').reason).toBe('6.00 % (60 of 1000 requests) breaks the limit of 5.00 %');
    expect(rule(report, 'slo.goodput_fraction').status).toBe('fail');
    expect(rule(report, 'slo.http_5xx_rate').status).toBe('pass');
  });

  test('one 5xx among 50 requests cannot breach a 1 % limit alone: inconclusive; many can', () => {
    const one = evaluate(synthesize({ n: 50, outcome: (i) => (i === 0 ? 'http_5xx' : 'ok') }));
    expect(rule(one, 'slo.http_5xx_rate').status).toBe('inconclusive');
    const many = evaluate(synthesize({ n: 50, outcome: (i) => (i % 2 === 0 ? 'http_5xx' : 'ok') }));
    expect(rule(many, 'slo.http_5xx_rate').status).toBe('fail');
  });
});

describe('empty data never passes', () => {
  test('a server failing every request: latency rules inconclusive, error rules fail, verdict fail', () => {
    const report = compare(synthesize({ n: 500 }), synthesize({ n: 500, outcome: () => 'http_5xx' }), defaultGate());
    expect(rule(report, 'latency.ttft_p95').status).toBe('inconclusive');
    expect(rule(report, 'latency.ttft_p95').reason).toBe('no samples in the current run');
    expect(rule(report, 'slo.http_5xx_rate').status).toBe('fail');
    expect(report.verdict).toBe('fail');
    neverPassesWithoutData(report);
  });

  test('a run with no requests in the window is inconclusive and passes nothing', () => {
    const report = evaluate(synthesize({ n: 0, rate: 10 }));
    expect(report.verdict).toBe('inconclusive');
    neverPassesWithoutData(report);
    expect(report.rules.filter((r) => r.status === 'pass')).toEqual([]);
  });

  test('with every rule disabled nothing is judged: inconclusive', () => {
    const off = { enabled: false };
    const gate = resolveGate({ slo: { ttft_p95: off, http_5xx_rate: off, http_429_rate: off, goodput_fraction: off } });
    expect(evaluate(synthesize({ n: 300 }), gate).verdict).toBe('inconclusive');
  });
});

describe('validity and comparability', () => {
  test('an explicit generator limit that a run breaks makes the verdict inconclusive, even over a failing rule', () => {
    const lagging = synthesize({ n: 2000, ttft: lognormal(240, 0.2), lagMs: 10 });
    expect(lagging.validity.checks.find((c) => c.name === 'schedule_lag')!.ok).toBe(false);
    const [base] = shifted(240, 1);
    const explicit = resolveGate({ validity: { max_schedule_lag_p99_ms: 5 } });
    const report = compare(base, lagging, explicit);
    expect(report.verdict).toBe('inconclusive');
    expect(report.reasons[0]).toMatch(
      /^current run not valid \(schedule_lag\): schedule lag 10\.\d+ ms against the explicit gate\.validity\.max_schedule_lag_p99_ms 5\.00 ms/,
    );
    const [, slower] = shifted(240, 1.15, { lagMs: 10 });
    const both = compare(base, slower, explicit);
    expect(both.verdict).toBe('inconclusive');
    // The 10 ms lag widens the TTFT p95 rule's own floor to 4 × its error bound, so its timing stays judgeable.
    const ttft = rule(both, 'latency.ttft_p95');
    expect(ttft.timing).toMatchObject({ judgeable: true });
    expect(ttft.threshold!).toBeGreaterThanOrEqual(4 * ttft.timing!.bound_ms);
  });

  test("the generator's limits are the spec's gate.validity", () => {
    const loose = synthesize({ n: 500, lagMs: 10, validity: { max_schedule_lag_p99_ms: 20 } });
    expect(loose.validity.checks.find((c) => c.name === 'schedule_lag')).toMatchObject({
      ok: true,
      message: expect.stringContaining('needs ≤ 20 ms'),
    });
    const strict = synthesize({ n: 500, validity: { max_event_loop_delay_p99_ms: 0, min_achieved_fraction: 1.0 } });
    expect(strict.validity.checks.find((c) => c.name === 'event_loop_delay')).toMatchObject({
      ok: false,
      message: expect.stringContaining('gate.validity.max_event_loop_delay_p99_ms'),
    });
    expect(evaluate(strict).verdict).toBe('inconclusive');
  });

  test('a generator thread busy past gate.validity.max_generator_cpu makes the run inconclusive, and says so', () => {
    const busy = synthesize({ n: 500, windowCpu: { busy: 0.95, spin: 0.02 } });
    expect(busy.validity.checks.find((c) => c.name === 'generator_cpu')).toEqual({
      name: 'generator_cpu',
      ok: false,
      message:
        'generator thread busy 95 % of a core over the window, its idle spin before arrivals left out (needs ≤ 80 %, gate.validity.max_generator_cpu): the load generator was the bottleneck (add --workers or machines)',
    });
    // The default limit informs; an explicit one applies.
    expect(evaluate(busy, defaultGate()).verdict).toBe('pass');
    expect(evaluate(busy, defaultGate()).reasons.at(-1)).toMatch(/^generator timing over its default limits \(current generator_cpu\)/);
    expect(evaluate(busy, resolveGate({ validity: { max_generator_cpu: 0.8 } })).verdict).toBe('inconclusive');
    expect(synthesize({ n: 500, windowCpu: { busy: 0.95, spin: 0.02 }, validity: { max_generator_cpu: 1 } }).validity.valid).toBe(true);
    // A platform without per-thread CPU is reported, not judged.
    expect(synthesize({ n: 500, windowCpu: null }).validity.checks.find((c) => c.name === 'generator_cpu')).toMatchObject({
      ok: true,
      message: expect.stringContaining('not measured'),
    });
  });

  test('requests held in the HTTP pool past gate.validity.max_pool_wait_p99_ms make the run inconclusive', () => {
    const waiting = synthesize({ n: 500, poolWaitMs: 80 });
    expect(waiting.generator.pool_wait_ms!.p99).toBeCloseTo(80, 0);
    expect(waiting.validity.checks.find((c) => c.name === 'pool_wait')).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /^requests waited p99 80\.\d+ ms in the HTTP pool .*needs ≤ 50 ms, gate\.validity\.max_pool_wait_p99_ms.*the server never saw/,
      ),
    });
    expect(evaluate(waiting, resolveGate({ validity: { max_pool_wait_p99_ms: 50 } })).verdict).toBe('inconclusive');
    expect(synthesize({ n: 500, poolWaitMs: 80, validity: { max_pool_wait_p99_ms: 100 } }).validity.valid).toBe(true);
  });

  test('a baseline made before the generator CPU and pool wait were measured is judged without them', () => {
    const made = synthesize({ n: 500 });
    const newChecks = ['generator_cpu', 'pool_wait'];
    expect(made.validity.checks.map((c) => c.name)).toEqual(expect.arrayContaining(newChecks));
    const written = structuredClone(made);
    delete written.generator.window_cpu;
    delete written.generator.pool_wait_ms;
    delete written.histograms.poolWait;
    written.validity.checks = written.validity.checks.filter((c) => !newChecks.includes(c.name));
    const old = parseResult(JSON.stringify(written), 'old.json');
    expect(compare(old, synthesize({ n: 500 }), defaultGate()).verdict).toBe('pass');
    const merged = mergeResults([old, synthesize({ n: 500 })]);
    expect(merged.generator.window_cpu).toBeUndefined();
    expect(merged.generator.pool_wait_ms).toBeUndefined();
    const names = merged.validity.checks.map((c) => c.name);
    expect(names).not.toContain('generator_cpu');
    expect(names).not.toContain('pool_wait');
  });

  test('an invalid baseline makes the verdict inconclusive', () => {
    const explicit = resolveGate({ validity: { max_schedule_lag_p99_ms: 5 } });
    const report = compare(synthesize({ n: 500, lagMs: 10 }), synthesize({ n: 500 }), explicit);
    expect(report.verdict).toBe('inconclusive');
    expect(report.reasons[0]).toMatch(/^baseline run not valid \(schedule_lag\)/);
  });

  test('a different model is inconclusive and says which', () => {
    const report = compare(synthesize({ n: 500 }), synthesize({ n: 500, model: 'other-model' }), defaultGate());
    expect(report.verdict).toBe('inconclusive');
    expect(report.reasons).toContain('not comparable with the baseline: the model differs: baseline "test-model", current "other-model"');
  });

  test('a different spec is inconclusive and names the differing fields', () => {
    const report = compare(synthesize({ n: 500 }), synthesize({ n: 500, promptTokens: 105 }), defaultGate());
    expect(report.verdict).toBe('inconclusive');
    const spec = report.checks.find((c) => c.name === 'spec')!;
    expect(spec.ok).toBe(false);
    expect(spec.message).toMatch(
      /^spec hash differs \(baseline [0-9a-f]{12}, current [0-9a-f]{12}\) in workload\.input_tokens\.value 100 → 105$/,
    );
  });

  test('the same spec at another target URL (a preview deployment) is comparable', () => {
    const base = synthesize({ n: 500 });
    const moved = synthesize({ n: 500, seed: 2 });
    moved.spec = { ...moved.spec, target: { ...moved.spec.target, url: 'https://preview-123.example.com/v1' } };
    moved.spec_hash = specHash(moved.spec);
    const report = compare(base, moved, defaultGate());
    expect(report.checks.find((c) => c.name === 'spec')!.ok).toBe(true);
    expect(report.verdict).toBe('pass');
  });

  test('delivered output lengths and offered rates beyond the tolerance are inconclusive', () => {
    const lengths = compare(synthesize({ n: 500 }), synthesize({ n: 500, tokens: 25 }), defaultGate());
    expect(lengths.checks.find((c) => c.name === 'output_length')).toMatchObject({
      ok: false,
      message: 'delivered output length (mean) 25.0 tokens vs baseline 20.0 tokens: differs by 25.0 %, more than the 10 % tolerance',
    });
    expect(lengths.verdict).toBe('inconclusive');
    const rate = compare(synthesize({ n: 500 }), synthesize({ n: 600 }), defaultGate());
    expect(rate.checks.find((c) => c.name === 'offered_rate')!.ok).toBe(false);
    expect(rate.verdict).toBe('inconclusive');
  });
});
