import { analyzeSweep, nextBisection, nextKneeBisection } from '../../src/capacity/analysis.js';
import { completedVsOffered } from '../../src/capacity/noise.js';
import { rttOf } from '../../src/capacity/document.js';
import { compareSweeps } from '../../src/capacity/gate.js';
import { parseSweep } from '../../src/capacity/load.js';
import { sizeFleet } from '../../src/capacity/sizing.js';
import type { AnalysisOptions } from '../../src/capacity/types.js';
import { parseSpec } from '../../src/spec/load.js';
import { fillLoads, interpolatedLoads, plannedLoads } from '../../src/sweep/plan.js';
import { curvePoints, sweepDocument, sweepSpec, syntheticPoint } from './fixtures.js';

const OPTS: AnalysisOptions = {
  metric: 'ttft',
  sloTarget: 0.99,
  stop: { min_achieved_fraction: 0.9, max_p99_multiple: 10 },
  batchSlots: null,
  precision: 0.05,
};
const RATES = [4, 8, 16, 24, 28, 32, 36, 48, 60];

describe('capacity analysis', () => {
  const points = curvePoints(RATES);
  const a = analyzeSweep(points, OPTS);

  test('S is the TTFT p50 of the lightest point, less the round trip when one is given', () => {
    expect(a.service_floor_ms).toBe(points[0].result.metrics.ttft_ms!.p50);
    expect(a.service_floor_ms!).toBeGreaterThan(19);
    expect(a.service_floor_ms!).toBeLessThan(22);
    const withRtt = analyzeSweep(points, { ...OPTS, rttMs: 5 });
    expect(withRtt.service_floor_ms!).toBeCloseTo(a.service_floor_ms! - 5, 3);
    expect(withRtt.service_floor.rtt_ms).toBe(5);
    // ρ of the lightest point against the plateau: 4 / 40 = 10 % ≥ 5 %, said in a note.
    expect(a.service_floor.utilization).toBeCloseTo(0.1, 3);
    expect(a.service_floor.note).toMatch(/ρ = 10 % \(≥ 5 %\)/);
  });

  test("the round trip S is net of is the least of the points' probe medians: a probe that waited for a core cannot cut S", () => {
    const probed = curvePoints(RATES).map((p, i) => {
      p.result.network = { probes: 10, connect_ms: null, rtt_ms: { p50: [11, 0.4, 0.3, 0.5][i] ?? 0.6, p99: 12 } };
      return p;
    });
    expect(rttOf(probed)).toBe(0.3);
    expect(rttOf(curvePoints(RATES))).toBeNull();
    const floor = analyzeSweep(probed, { ...OPTS, rttMs: rttOf(probed) });
    expect(floor.service_floor_ms!).toBeCloseTo(probed[0].result.metrics.ttft_ms!.p50 - 0.3, 3);
  });

  test('the knee is the last point with p99 ≤ 3 × S that completes what it is offered', () => {
    // ρ = 0.8 gives TTFT ≈ 41 ms (p99 ≈ 52 < 3 S ≈ 61); ρ = 0.9 gives ≈ 73 ms.
    expect(a.knee.rate_per_s).toBe(32);
    expect(a.knee.next_load).toBe(36);
    expect(a.knee.p99_ms!).toBeLessThanOrEqual(a.knee.limit_ms!);
    expect(a.knee.limit_ms).toBeCloseTo(3 * a.service_floor_ms!, 2);
    expect(a.knee.rule).toContain('p99 ≤ max(3 × S, 2 ms)');
    expect(a.knee.note).toMatch(/^the next point \(36\) fails: p99 [\d.]+ ms \([\d.]+–[\d.]+ over the envelope\) vs [\d.]+ ms$/);
    // 32 passes with its noise against it (p99 bounds below 3 S), 36 fails with its noise in its favour.
    expect(a.knee.range).toEqual({ lower: 32, upper: 36 });
    // Its bracket [32, 36) is 12.5 % wide: refining asks for the midpoint; one of 2.5 % is pinned.
    expect(nextKneeBisection(points, OPTS)).toBe(34);
    expect(nextKneeBisection(points, { ...OPTS, precision: 0.2 })).toBeNull();
  });

  test('throughput that stops tracking offered load ends the knee even while latency is low', () => {
    const pts = [
      syntheticPoint({ rate: 10, ttftMs: 20 }),
      syntheticPoint({ rate: 20, completed: 22, ttftMs: 20 }),
      syntheticPoint({ rate: 30, completed: 29, ttftMs: 21 }),
    ];
    const k = analyzeSweep(pts, OPTS).knee;
    expect(k.rate_per_s).toBe(20);
    expect(k.note).toMatch(/throughput rose 7 req\/s for 10 more offered/);
  });

  test('saturation is the plateau of the points that could not complete their offer', () => {
    expect(a.saturation.reached).toBe(true);
    expect(a.saturation.requests_per_s).toBe(40);
    expect(a.saturation.output_tokens_per_s).toBe(400);
    expect(a.saturation.points.map((i) => points[i].rate_per_s)).toEqual([48, 60]);
    expect(a.saturation.range!.lower).toBeLessThan(40);
    expect(a.saturation.range!.upper).toBeGreaterThan(40);
    const below = analyzeSweep(curvePoints([4, 8, 16]), OPTS).saturation;
    expect(below.reached).toBe(false);
    expect(below.requests_per_s).toBe(16);
  });

  test('capacity at SLO is bracketed by the last passing and first failing point, and bisection asks for the midpoint', () => {
    expect(a.capacity_at_slo.rate_per_s).toBe(32);
    expect(a.capacity_at_slo.failing_load).toBe(36);
    expect(a.capacity_at_slo.resolution).toBeCloseTo(0.125, 3);
    expect(a.capacity_at_slo.note).toMatch(/wider than the precision/);
    expect(nextBisection(points, 0.99, 0.05)).toBe(34);
    const refined = [...points, ...curvePoints([34, 33])];
    // 33 passes (goodput 1 − 0.2/8 < 0.99? 33 > 32: goodput 0.875): it fails; bracket [32, 33) is 3.1 % < 5 %: done.
    expect(nextBisection(refined, 0.99, 0.05)).toBeNull();
    expect(analyzeSweep(refined, OPTS).capacity_at_slo.failing_load).toBe(33);
    expect(nextBisection(curvePoints([4, 8]), 0.99, 0.05)).toBeNull(); // nothing fails: unbounded, no bisection
  });

  test("Little's law per point names an oversubscribed server when the batch slots are known", () => {
    const slots = analyzeSweep(points, { ...OPTS, batchSlots: 8 });
    const heavy = slots.points.find((p) => p.load === 60)!;
    expect(heavy.littles_law.predicted_in_flight).toBeGreaterThan(8);
    expect(heavy.littles_law.oversubscribed).toBe(true);
    expect(slots.points[0].littles_law.oversubscribed).toBe(false);
    expect(slots.oversubscribed.join('\n')).toMatch(/point 9 \(60 req\/s\): L = [\d.]+ in flight > 8 batch slots/);
    expect(a.points.every((p) => p.littles_law.oversubscribed === null)).toBe(true);
  });

  test('the stop rule marks a point past saturation by achieved rate or by p99 > 10 × S', () => {
    const byLoad = new Map(a.points.map((p) => [p.load, p]));
    // 48 req/s completes 400 of 480 (83 %): short of 90 % by 32, within a 10 s window's count
    // noise (z·√400 = 33), so the stop rule fires there on its p99 instead; 60 req/s (67 %) is short beyond it.
    expect(byLoad.get(60)!.saturated_because).toMatch(
      /^completed 40 req\/s of 60 offered \(< 90 % beyond the edge noise of [\d.]+ requests\)$/,
    );
    expect(byLoad.get(48)!.saturated_because).toMatch(/^TTFT p99 [\d.]+ ms \(lower bound [\d.]+ ms\) > 10 × S/);
    expect(byLoad.get(32)!.saturated).toBe(false);
    const slow = analyzeSweep([syntheticPoint({ rate: 1, ttftMs: 10 }), syntheticPoint({ rate: 2, ttftMs: 150 })], OPTS);
    expect(slow.points[1].saturated_because).toMatch(/TTFT p99 [\d.]+ ms \(lower bound [\d.]+ ms\) > 10 × S/);
  });

  test('completed vs offered carries its noise: 93 % of offered with ~1 s in flight per request is no shortfall in a 15 s window', () => {
    // 145 arrivals, 135 completions in the window, ~9 requests in flight: C − A = −10 is the
    // requests in flight at the window's edges. The knee counts the window's own requests that
    // completed whenever (all of them here), so no edge term enters it.
    const light = syntheticPoint({ rate: 9.667, completed: 9, ttftMs: 25, e2eMs: 1000, windowS: 15 });
    const pts = [syntheticPoint({ rate: 5, ttftMs: 25, e2eMs: 1000, windowS: 15 }), light];
    const k = analyzeSweep(pts, OPTS).knee;
    expect(k.checks!.map((c) => c.verdict)).toEqual(['pass', 'pass']);
    expect(k.rate_per_s).toBe(9.667);
    // The stop rule compares the two counts within z·√(2·L) (here ±6.6 requests): 135 of 145 is within 90 %,
    // and 120 of 145 is short beyond it.
    expect(completedVsOffered(light.result, 0.95)).toMatchObject({ verdict: 'ambiguous' });
    const far = syntheticPoint({ rate: 9.667, completed: 8, ttftMs: 25, e2eMs: 1000, windowS: 15 });
    expect(completedVsOffered(far.result, 0.9).verdict).toBe('fail');
    expect(analyzeSweep([pts[0], far], OPTS).points[1].saturated_because).toMatch(
      /^completed 8 req\/s of 9.667 offered \(< 90 % beyond the edge noise/,
    );
    // Window requests that failed do count against the knee.
    const failing = syntheticPoint({ rate: 9.667, ttftMs: 25, e2eMs: 1000, windowS: 15 });
    failing.result.requests.window.by_class.ok = Math.floor(0.9 * failing.result.requests.window.scheduled);
    expect(analyzeSweep([pts[0], failing], OPTS).knee.checks![1].why).toMatch(/of the window's \d+ requests completed \(needs ≥ 95 %\)/);
  });

  test('one noisy point neither breaks nor makes the knee: the p99 is judged over the envelope of the points', () => {
    // A lone high p99 at 10 req/s between quiet points: capped by the quieter heavier points' bounds.
    const noisy = [
      syntheticPoint({ rate: 5, ttftMs: 20, windowS: 15 }),
      syntheticPoint({ rate: 10, ttftMs: 20, sigma: 0.5, windowS: 15, seed: 9 }),
      syntheticPoint({ rate: 15, ttftMs: 22, windowS: 15 }),
      syntheticPoint({ rate: 20, ttftMs: 200, windowS: 15 }),
    ];
    const k = analyzeSweep(noisy, OPTS).knee;
    expect(noisy[1].result.metrics.ttft_ms!.p99).toBeGreaterThan(k.limit_ms!); // alone, it would break the knee
    // Its p99 is capped by the quieter heavier points' upper bounds: a clear pass.
    expect(k.checks!.map((c) => c.verdict)).toEqual(['pass', 'pass', 'pass', 'fail']);
    expect(k.rate_per_s).toBe(15);
    expect(k.range).toEqual({ lower: 15, upper: 20 });
    // A lone lucky point above a failing one cannot become the knee: pooled with it, both fail.
    const lucky = [
      noisy[0],
      noisy[2],
      syntheticPoint({ rate: 18, ttftMs: 200, windowS: 15 }),
      syntheticPoint({ rate: 19, ttftMs: 20, windowS: 15 }),
    ];
    const l = analyzeSweep(lucky, OPTS).knee;
    expect(l.rate_per_s).toBe(15);
    expect(l.checks!.map((c) => c.verdict)).toEqual(['pass', 'pass', 'ambiguous', 'ambiguous']);
    expect(l.ambiguous).toEqual([2]);
  });

  test('a closed-loop sweep finds its knee and plateau in concurrency', () => {
    // W = 100 ms up to 4 slots, then requests queue: X = c / W levels off at 40 req/s.
    const cs = [1, 2, 4, 8, 16];
    const pts = cs.map((c) => {
      const w = Math.max(100, (c / 40) * 1000);
      return syntheticPoint({ rate: (c / w) * 1000, completed: (c / w) * 1000, ttftMs: 20 * (w / 100), concurrency: c, e2eMs: w });
    });
    const c = analyzeSweep(pts, OPTS);
    expect(c.mode).toBe('closed');
    expect(c.knee.concurrency).toBe(4);
    expect(c.saturation.reached).toBe(true);
    expect(c.saturation.requests_per_s).toBe(40);
    expect(c.knee.rule).toContain('concurrency');
  });
});

describe('sizing', () => {
  test('replicas, KV-resident sequences and the timeout follow their formulas', () => {
    const a = analyzeSweep(curvePoints(RATES), OPTS);
    const s = sizeFleet(a, { peak_rate: 100, target_utilization: 0.75 })!;
    expect(s.replicas).toBe(4); // ⌈100 / (0.75 · 40)⌉
    expect(s.replicas_formula).toBe('⌈λ_peak / (ρ_target · X_max)⌉ = ⌈100 / (0.75 · 40)⌉ = 4');
    expect(s.replicas_at_slo).toBe(4); // ⌈100 / 32⌉
    // Per replica 25 req/s: the heaviest point at or below it is 24 req/s.
    const op = a.points[s.operating_point.point];
    expect(op.load).toBe(24);
    expect(s.kv_sequences).toBe(Math.ceil((100 * op.e2e_ms.mean!) / 1000));
    expect(s.kv_sequences_p99).toBe(Math.ceil((100 * op.e2e_ms.p99!) / 1000));
    expect(s.kv_sequences_p99).toBeGreaterThanOrEqual(s.kv_sequences);
    expect(s.timeout_ms).toBeCloseTo(Math.max(3 * op.e2e_ms.p90!, op.e2e_ms.p999!), 2);
    expect(s.kv_sequences_formula).toMatch(/^λ_peak · W = 100 req\/s · [\d.]+ s = [\d.]+ sequences \([\d.]+ per replica\)$/);
    expect(sizeFleet(a, undefined)).toBeNull();
  });
});

describe('sweep plans and spec validation', () => {
  test('linear and geometric ladders, and fill points', () => {
    expect(plannedLoads(sweepSpec({ rates: undefined, from: 10, to: 40, steps: 4 }).sweep!)).toEqual([10, 20, 30, 40]);
    expect(plannedLoads(sweepSpec({ rates: undefined, from: 5, to: 40, steps: 4, scale: 'geometric' }).sweep!)).toEqual([5, 10, 20, 40]);
    expect(plannedLoads(sweepSpec({ rates: [30, 10, 20] }).sweep!)).toEqual([10, 20, 30]);
    expect(fillLoads(10, 20, 3)).toEqual([12.5, 15, 17.5]);
    // profile guidellm: rates evenly between the synchronous rate and the maximum throughput, both ends excluded.
    expect(interpolatedLoads(4, 8, 3)).toEqual([5, 6, 7]);
  });

  const bad = (sweep: string) => () => parseSpec(`target: { url: sim }\nsweep: ${sweep}\n`, 's.yml', {});
  test.each([
    [
      '{ rates: [5, 10], concurrency: [1, 2] }',
      's.yml: sweep gives rates and concurrency; expected exactly one way of choosing the points',
    ],
    ['{ from: 5, steps: 3 }', 's.yml: sweep.to is missing; expected from, to and steps together'],
    ['{ from: 50, to: 5, steps: 3 }', 's.yml: sweep.to is 5; expected a rate above sweep.from (50)'],
    ['{ rates: [5, 5] }', 's.yml: sweep.rates lists 5 twice; expected each point once'],
    ['{ rates: [5, -1] }', 's.yml: sweep.rates.1 is -1; expected a number > 0'],
    ['{ ratse: [5] }', 's.yml: sweep.ratse is not a known key; did you mean "rates"?'],
    ['{ metric: e2e }', 's.yml: sweep chooses no points; expected rates: [..], from/to/steps, auto: true, or concurrency: [..]'],
    ['fast', 's.yml: sweep is "fast"; expected auto, or a mapping with rates, from/to/steps, auto or concurrency'],
    [
      '{ rates: [5], profile: guidellm }',
      's.yml: sweep.profile is guidellm with rates; expected auto: true (a listed sweep measures its own points)',
    ],
    ['{ auto: true, profile: fast }', 's.yml: sweep.profile is "fast"; expected one of doubling, guidellm'],
    ['{ auto: true, slo_target: 2 }', 's.yml: sweep.slo_target is 2; expected a number > 0 and ≤ 1'],
  ])('sweep: %s is one line', (sweep, message) => {
    expect(bad(sweep)).toThrow(message);
  });

  test('sweep: auto is shorthand, and a spec without a sweep hashes as before', () => {
    const auto = parseSpec('target: { url: sim }\nsweep: auto\n', 's.yml', {});
    expect(auto.spec.sweep).toMatchObject({ auto: true, metric: 'ttft', slo_target: 0.99, bisect: { precision: 0.05, max_points: 4 } });
    const plain = parseSpec('target: { url: sim }\n', 's.yml', {});
    expect(plain.spec.sweep).toBeUndefined();
    expect(plain.spec.sizing).toBeUndefined();
  });
});

describe('sweep document', () => {
  test('round-trips through JSON and its schema; a broken one is refused in one line', () => {
    const doc = sweepDocument(curvePoints(RATES), sweepSpec({}, { peak_rate: 100 }));
    const back = parseSweep(JSON.parse(JSON.stringify(doc)), 'sweep.json');
    expect(back.analysis.knee.rate_per_s).toBe(32);
    expect(back.sizing!.replicas).toBe(4);
    const broken = JSON.parse(JSON.stringify(doc));
    delete broken.points[2].result.metrics;
    expect(() => parseSweep(broken, 'sweep.json')).toThrow(
      /^sweep\.json: not a valid loadgate sweep: \/points\/2\/result must have required property 'metrics'$/,
    );
    expect(() => parseSweep({ schema_version: 1 }, 'r.json')).toThrow('r.json: not a loadgate sweep document');
  });
});

describe('capacity gate', () => {
  const spec = sweepSpec({ gate: { capacity_at_slo: { max_decrease_pct: 10 }, knee: { max_decrease_pct: 10 } } });
  const base = sweepDocument(curvePoints(RATES), spec);

  test('the same capacity passes; a 30 % slower build fails capacity, knee and saturation', () => {
    const same = compareSweeps(base, sweepDocument(curvePoints(RATES, 1, 7), spec));
    expect(same.verdict).toBe('pass');
    expect(same.rules.map((r) => r.status)).toEqual(['pass', 'pass', 'pass']);
    const slow = compareSweeps(base, sweepDocument(curvePoints(RATES, 0.7), spec));
    expect(slow.verdict).toBe('fail');
    const byId = Object.fromEntries(slow.rules.map((r) => [r.id, r]));
    expect(byId['capacity.capacity_at_slo'].status).toBe('fail');
    expect(byId['capacity.capacity_at_slo'].reason).toMatch(
      /^fell from 32 to 16 req\/s \(−50\.0 %\), allowed −10\.0 %; even the current's favourable bound/,
    );
    expect(byId['capacity.knee'].status).toBe('fail');
    expect(byId['capacity.saturation'].status).toBe('fail');
  });

  test('a drop the sweep cannot resolve is within noise, not a failure', () => {
    // Capacity 5 % lower: its bracket still reaches the baseline's passing point.
    const cur = sweepDocument(curvePoints(RATES, 0.95), spec);
    const r = compareSweeps(base, cur).rules.find((x) => x.id === 'capacity.capacity_at_slo')!;
    expect(r.status).toBe('pass');
  });

  test('an invalid point below saturation or an interrupted sweep makes the verdict inconclusive', () => {
    const pts = curvePoints(RATES, 0.7);
    pts[2].result.validity.checks.push({
      name: 'schedule_lag',
      ok: false,
      message: 'schedule lag p99 40 ms: the load generator was the bottleneck',
    });
    const invalid = compareSweeps(base, sweepDocument(pts, spec));
    expect(invalid.verdict).toBe('inconclusive');
    expect(invalid.reasons[0]).toBe(
      'current run not valid (schedule_lag): point 3 (16): schedule lag p99 40 ms: the load generator was the bottleneck',
    );
    const cut = compareSweeps(base, sweepDocument(curvePoints(RATES), spec, { interrupted: true }));
    expect(cut.verdict).toBe('inconclusive');
    expect(cut.reasons.join('\n')).toMatch(/the sweep was interrupted/);
  });

  test('sweeps of different workloads are not comparable', () => {
    const other = sweepSpec({});
    other.workload.output_tokens = { dist: 'fixed', value: 99 };
    const r = compareSweeps(base, sweepDocument(curvePoints(RATES), other));
    expect(r.verdict).toBe('inconclusive');
    expect(r.reasons[0]).toMatch(/^not comparable with the baseline: the sweeps differ in workload/);
  });
});
