/**
 * Validity judged per rule, from results built by the real recorder (real
 * histograms). The timestamp error bound is the generator's own estimate
 * (result.generator.timestamp_error_ms), set here as a run would report it.
 */
import { compare } from '../../src/gate/compare.js';
import { atPercentile, errorBound } from '../../src/gate/timing-validity.js';
import { defaultGate, resolveGate } from '../../src/spec/gate-schema.js';
import type { GateReport, RuleOutcome } from '../../src/gate/types.js';
import { mergeResults } from '../../src/result/merge.js';
import type { Result } from '../../src/result/types.js';
import { lognormal, synthesize, type Synth } from '../result/synthetic.js';

const rule = (report: GateReport, id: string): RuleOutcome => report.rules.find((r) => r.id === id)!;

/** A run as the generator would report it, with its own timestamp error bound at p50/p90/p99. */
function withBound(o: Synth, bound?: { p50: number; p90: number; p99: number }): Result {
  const r = synthesize(o);
  if (bound) Object.assign(r.generator, { timestamp_error_ms: bound });
  return r;
}

const QUIET = { p50: 0.05, p90: 0.1, p99: 0.3 };
/** Schedule lag p99 10 ms from sporadic spikes: 2 % of requests sent 10.5 ms late, the rest 0.2 ms. */
const spiky = (i: number) => (i % 50 === 7 ? 10.5 : 0.2);

describe('an A/A pair with sporadic lag spikes (lag p99 ~10 ms) under a 20 ms allowed change', () => {
  const ttft = lognormal(30, 0.2);
  // The timestamps themselves were good (p99 1 ms: within a quarter of even ITL p99's 5 ms).
  const base = withBound({ n: 2000, ttft, lagMs: spiky, seed: 1 }, { p50: 0.1, p90: 0.3, p99: 1 });
  const cur = withBound({ n: 2000, ttft, lagMs: spiky, seed: 2 }, { p50: 0.1, p90: 0.3, p99: 1 });

  test('passes: the lag at the quoted percentile is far below a quarter of the allowed change', () => {
    expect(cur.metrics.schedule_lag_ms!.p99).toBeGreaterThan(10);
    expect(cur.validity.checks.find((c) => c.name === 'schedule_lag')!.ok).toBe(false);
    const report = compare(base, cur, resolveGate({ latency: { ttft_p95: { max_increase_ms: 20 } } }));
    expect(report.verdict).toBe('pass');
    expect(rule(report, 'latency.ttft_p95')).toMatchObject({
      status: 'pass',
      timing: { source: 'timestamp_error', allowed_ms: 20, max_bound_ms: 5, judgeable: true },
    });
    expect(rule(report, 'latency.ttft_p95').timing!.bound_ms).toBeLessThan(1.5);
    expect(report.reasons.at(-1)).toMatch(/^generator timing over its default limits \(baseline schedule_lag, current schedule_lag\)/);
  });

  test('an older result without timestamp_error_ms falls back to its lag and loop-delay tails, and says so', () => {
    const old = compare(
      synthesize({ n: 2000, ttft, lagMs: spiky, seed: 1 }),
      synthesize({ n: 2000, ttft, lagMs: spiky, seed: 2 }),
      defaultGate(),
    );
    expect(old.verdict).toBe('pass');
    expect(rule(old, 'latency.ttft_p95').timing).toMatchObject({ source: 'lag_and_loop_delay', judgeable: true });
  });

  test('the fixed 5 ms limit, set explicitly, still applies as before: inconclusive', () => {
    const report = compare(base, cur, resolveGate({ validity: { max_schedule_lag_p99_ms: 5 } }));
    expect(report.verdict).toBe('inconclusive');
    expect(report.reasons[0]).toMatch(/^baseline run not valid \(schedule_lag\)/);
  });
});

describe('a run whose timestamps were late at the tail (as at 800 req/s on one core)', () => {
  // TTFT ~50 ms; a TTFT p99 rule with a 10 % tolerance allows ~6 ms; the bound at p99 is 22.6 ms.
  const ttft = lognormal(50, 0.1);
  const gate = resolveGate({
    latency: { ttft_p99: { max_increase_pct: 10, max_increase_ms: 0 } },
    slo: { ttft_p99: { max_ms: 500 } },
  });
  const base = withBound({ n: 3000, ttft, seed: 1 }, QUIET);
  const late = withBound({ n: 3000, ttft, seed: 2 }, { p50: 0.4, p90: 3, p99: 22.6 });

  test('the tight TTFT p99 rule is inconclusive, naming the bound and the allowed change; loose rules stay judged', () => {
    const report = compare(base, late, gate);
    const tight = rule(report, 'latency.ttft_p99');
    expect(tight.status).toBe('inconclusive');
    const allowed = tight.threshold!;
    expect(allowed).toBeGreaterThan(5);
    expect(allowed).toBeLessThan(8);
    expect(tight.reason).toMatch(
      new RegExp(
        `^not judgeable at this timing precision: the generator's timestamp error bound at p99 is 22\\.6 ms \\(the larger of both runs’\\), more than 25\\.0 % of the ${allowed.toFixed(2).replace('.', '\\.')} ms allowed change`,
      ),
    );
    expect(tight.timing).toMatchObject({ bound_ms: 22.6, judgeable: false });
    // E2E p95 allows ≥ 50 ms: a bound of ~9 ms at p95 (between p90 3 and p99 22.6) is within a quarter of it.
    expect(rule(report, 'latency.e2e_p95')).toMatchObject({ status: 'pass', timing: { judgeable: true } });
    expect(rule(report, 'latency.e2e_p95').timing!.bound_ms).toBeCloseTo(3 + Math.log10(2) * 19.6, 5);
    // TPOT's error is spread over the tokens; the absolute TTFT p99 limit has a ~440 ms margin.
    expect(rule(report, 'latency.tpot_p95').status).toBe('pass');
    expect(rule(report, 'slo.ttft_p99')).toMatchObject({ status: 'pass', timing: { judgeable: true } });
    expect(report.verdict).toBe('inconclusive');
  });

  test('an absolute limit close to the value is inconclusive against its margin', () => {
    const near = resolveGate({ slo: { ttft_p99: { max_ms: 70 } } });
    const report = compare(null, late, near);
    const slo = rule(report, 'slo.ttft_p99');
    expect(slo.status).toBe('inconclusive');
    expect(slo.reason).toMatch(/at p99 is 22\.6 ms \(the current run’s\), more than 25\.0 % of the \d+\.\d+ ms margin to the limit/);
  });

  test('a quiet run keeps every rule judged', () => {
    const report = compare(base, withBound({ n: 3000, ttft, seed: 3 }, QUIET), gate);
    expect(report.rules.filter((r) => r.timing).every((r) => r.timing!.judgeable)).toBe(true);
    expect(report.verdict).toBe('pass');
  });
});

describe('rules on error counts are judged whatever the timing', () => {
  test('half the requests 5xx with an explicit timing limit broken: fail on the 5xx rule, latency untrusted', () => {
    const gate = resolveGate({ validity: { max_schedule_lag_p99_ms: 1 } });
    const cur = synthesize({ n: 1000, lagMs: 3, outcome: (i) => (i % 2 ? 'http_5xx' : 'ok') });
    const report = compare(synthesize({ n: 1000 }), cur, gate);
    expect(report.verdict).toBe('fail');
    expect(rule(report, 'slo.http_5xx_rate')).toMatchObject({ status: 'fail', evidence: 'errors' });
    expect(rule(report, 'error_rate')).toMatchObject({ status: 'fail', evidence: 'errors' });
    expect(rule(report, 'slo.goodput_fraction')).toMatchObject({ status: 'fail', evidence: 'errors' });
    expect(rule(report, 'slo.goodput_fraction').reason).toMatch(/^500 of 1000 requests failed, so goodput is at most 50\.0 %/);
    expect(report.reasons).toContain(
      'rules on measurements were not trusted (current schedule_lag); the rules above count failed requests, which no timing can move',
    );
  });

  test('every request failed: fail, whatever the checks say', () => {
    const cur = synthesize({ n: 200, lagMs: 30, outcome: () => 'http_5xx' });
    const report = compare(null, cur, resolveGate({ validity: { max_schedule_lag_p99_ms: 0.000001 } }));
    expect(report.verdict).toBe('fail');
    expect(report.reasons[0]).toBe('every one of the 200 requests in the window failed (200 http_5xx)');
  });

  test('a run interrupted before any window request finished is inconclusive, not a broken server', () => {
    const cur = synthesize({ n: 200, interrupted: true, outcome: () => 'cancelled' });
    const report = compare(null, cur, resolveGate({}));
    expect(report.verdict).toBe('inconclusive');
    expect(report.reasons.join('\n')).not.toMatch(/every one of the/);
    // Cancelled requests with one real failure among them: the server did fail what it ended.
    const broken = synthesize({ n: 200, interrupted: true, outcome: (i) => (i === 0 ? 'http_5xx' : 'cancelled') });
    expect(compare(null, broken, resolveGate({})).reasons[0]).toBe(
      'every one of the 1 requests in the window that the server ended failed (1 http_5xx); 199 more were cancelled by the interrupt',
    );
  });
});

test('the bound between quoted percentiles is interpolated on the log of the tail', () => {
  const knots: [number, number][] = [
    [50, 1],
    [90, 3],
    [99, 21],
  ];
  expect(atPercentile(knots, 50)).toBe(1);
  expect(atPercentile(knots, 99)).toBe(21);
  expect(atPercentile(knots, 95)).toBeCloseTo(3 + Math.log10(2) * 18, 9);
  expect(atPercentile(knots, 99.9)).toBe(21);
  // TTFT from send starts at the real send, so the lag does not count; TTFT from the schedule includes it.
  const r = withBound({ n: 500, lagMs: 4 }, QUIET);
  expect(errorBound(r, 95, 'ttft').ms).toBeCloseTo(4, 1);
  expect(errorBound(r, 95, 'ttft_from_send').ms).toBeLessThan(0.3);
  // The delivery floor delays every chunk alike: it cancels in a gap between two of them.
  const floored = withBound({ n: 500, tokens: 21 }, { p50: 0.5, p90: 1, p99: 2 });
  Object.assign(floored.generator.timestamp_error_ms!, { delivery_ms: 0.4 });
  expect(errorBound(floored, 99, 'itl').ms).toBeCloseTo(1.6, 9);
  expect(errorBound(floored, 99, 'ttft_from_send').ms).toBe(2);
  expect(errorBound(floored, 99, 'ttft').ms).toBe(2);
  expect(errorBound(floored, 99, 'tpot').ms).toBeCloseTo(1.6 / 20, 9);
  // A result stating both figures: TTFT and E2E rules read how far their quantiles can have moved
  // (0.6 ms at p99), ITL and TPOT how late one chunk can be (4 ms at p99, less the floor), and
  // what has no quantile figure of its own, or counts requests one by one, the larger of the two.
  const both = withBound({ n: 500, tokens: 21 }, { p50: 0.2, p90: 0.3, p99: 0.6 });
  Object.assign(both.generator.timestamp_error_ms!, { delivery_ms: 0.1, chunk: { p50: 0.5, p90: 1, p99: 4 } });
  expect(errorBound(both, 99, 'ttft').ms).toBe(0.6);
  // Each quantile figure holds for the percentiles of its band (p90: the p90 and the p95), never interpolated.
  expect([errorBound(both, 95, 'ttft').ms, errorBound(both, 99.9, 'ttft').ms, errorBound(both, 50, 'e2e').ms]).toEqual([0.3, 0.6, 0.2]);
  expect(errorBound(both, 99, 'e2e').ms).toBe(0.6);
  expect(errorBound(both, 99, 'itl').ms).toBeCloseTo(3.9, 9);
  expect(errorBound(both, 99, 'tpot').ms).toBeCloseTo(3.9 / 20, 9);
  for (const m of ['ttft_from_send', 'time_to_first_answer', 'goodput']) expect([m, errorBound(both, 99, m).ms]).toEqual([m, 4]);
  expect(errorBound(both, 99, 'normalized_latency').ms).toBeCloseTo(4 / 21, 9);
  // A result with a p99.9 figure of its own: p99.9 rules read it, p99 rules the p99's; without
  // it (the result above) the p99 figure holds the p99.9 too.
  Object.assign(both.generator.timestamp_error_ms!, { p999: 1.5 });
  expect([errorBound(both, 99, 'ttft').ms, errorBound(both, 99.9, 'ttft').ms, errorBound(both, 99.9, 'e2e').ms]).toEqual([0.6, 1.5, 1.5]);
  // E2E figures of its own: E2E rules read them, TTFT rules the TTFT figures, and what has no
  // quantile figure of its own the largest.
  Object.assign(both.generator.timestamp_error_ms!, { e2e: { p50: 0.25, p90: 0.5, p99: 7, p999: 9 } });
  expect([errorBound(both, 99, 'ttft').ms, errorBound(both, 99, 'e2e').ms, errorBound(both, 99.9, 'e2e').ms]).toEqual([0.6, 7, 9]);
  expect([errorBound(both, 50, 'ttft').ms, errorBound(both, 50, 'e2e').ms]).toEqual([0.2, 0.25]);
  expect([errorBound(both, 99, 'goodput').ms, errorBound(both, 99, 'normalized_latency').ms]).toEqual([7, 7 / 21]);
  expect(errorBound(both, 99, 'itl').ms).toBeCloseTo(3.9, 9);
});

test('an outcome no error within the bound could change stands, and says so', () => {
  const ttft = lognormal(50, 0.1);
  const gate = resolveGate({ latency: { ttft_p99: { max_increase_pct: 10, max_increase_ms: 0 } } });
  const late = { p50: 0.4, p90: 3, p99: 22.6 };
  // Three times slower: the rise is far beyond the allowed change plus the bound.
  const report = compare(
    withBound({ n: 3000, ttft, seed: 1 }, QUIET),
    withBound({ n: 3000, ttft: (rng) => ttft(rng) * 3, seed: 2 }, late),
    gate,
  );
  const tight = rule(report, 'latency.ttft_p99');
  expect(tight.status).toBe('fail');
  expect(tight.timing!.judgeable).toBe(false);
  expect(tight.reason).toMatch(/; fails even with the generator's 22\.6 ms error bound against it$/);
  expect(report.verdict).toBe('fail');
});

test('a replicate merge whose input failed only timing or server-side checks is judged by the merged run', () => {
  const ttft = lognormal(30, 0.2);
  const lagging = withBound({ n: 1000, ttft, lagMs: 8, seed: 4 }, QUIET);
  expect(lagging.validity.checks.find((c) => c.name === 'schedule_lag')!.ok).toBe(false);
  const merged = mergeResults([withBound({ n: 1000, ttft, seed: 3 }, QUIET), lagging]);
  expect(merged.validity.checks.find((c) => c.name === 'merge_inputs')).toMatchObject({ ok: false });
  const report = compare(merged, withBound({ n: 1000, ttft, seed: 5 }, QUIET), resolveGate({ noise: { between_run: false } }));
  expect(report.checks.find((c) => c.name === 'merge_inputs')).toMatchObject({ ok: false, effect: 'advisory' });
  expect(report.verdict).toBe('pass');
  expect(report.reasons.at(-1)).toMatch(/^generator timing over its default limits \(baseline schedule_lag, baseline merge_inputs\)/);
});
