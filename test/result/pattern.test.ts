import { loadPlan } from '../../src/arrivals/load-plan.js';
import { bucketIntervalMs, PatternRecorder, type FinishedRequest } from '../../src/metrics/pattern-recorder.js';
import { baseRateOf, buildPatternSection, mergePatternSections, patternFacts } from '../../src/result/pattern.js';
import { resolveSpec } from '../../src/spec/resolve.js';

/** A spec's plan and a recorder for it, fed with requests whose TTFT `ttftAt` gives by send time. */
function run(
  load: object,
  ttftAt: (tMs: number) => number,
  o: { rate: number; keep?: (i: number) => boolean; gate?: object } = { rate: 40 },
) {
  const r = { ...resolveSpec({ target: { url: 'sim' }, load, gate: o.gate ?? {} }) };
  const plan = loadPlan(r);
  const rec = new PatternRecorder(0, bucketIntervalMs(plan.totalMs), plan.totalMs, plan.phases);
  let i = 0;
  for (let t = 0; t < plan.totalMs; t += 1000 / o.rate, i++) {
    if (o.keep && !o.keep(i)) continue;
    // ±10 % of jitter, fixed per request (not drawn in order), so any subset of requests keeps its values.
    const ttft = ttftAt(t) * (0.9 + 0.2 * (((i * 7919) % 101) / 100));
    rec.opened(t);
    const req: FinishedRequest = {
      tSched: t,
      tSend: t,
      tFirst: t + ttft,
      tLast: t + ttft + 100,
      tEnd: t + ttft + 101,
      chunks: 10,
      outcome: 'ok',
      outputTokens: 10,
    };
    rec.complete(req);
  }
  const spike = r.pattern?.kind === 'spike' ? { atMs: r.pattern.atMs, forMs: r.pattern.forMs } : undefined;
  return { r, plan, rec, facts: patternFacts(plan, rec, r.spec.gate, baseRateOf(r.spec.load), spike) };
}

const spikeLoad = { rate: 40, warmup: '2s', steady: '20s', cooldown: '0s', pattern: { kind: 'spike', multiplier: 3, at: '5s', for: '3s' } };
// The window starts at 2 s; the spike runs 7–10 s; TTFT stays high for requests sent until 11.5 s.
const slowUntil = (end: number) => (t: number) => (t >= 7000 && t < end ? 300 : 40);

describe('the spike section', () => {
  test('recovery is the time from the spike end until the sliding p95 is back within 10 %', () => {
    const s = buildPatternSection(run(spikeLoad, slowUntil(11_500)).facts);
    expect(s.interval_s).toBe(0.1);
    expect(s.sliding_window_s).toBe(1);
    expect(s.spike!.pre_ttft_p95_ms).toBeGreaterThan(40);
    expect(s.spike!.pre_ttft_p95_ms).toBeLessThan(44.5);
    expect(s.spike!.recovery_s).toBe(1.5);
    expect(s.spike!.during.ttft_ms!.p50).toBeGreaterThan(250);
    expect(s.phases.map((p) => p.scheduled)).toEqual([200, 120, 480]);
  });

  test('a server slow to the end of the window did not recover: null', () => {
    const s = buildPatternSection(run(spikeLoad, slowUntil(Infinity)).facts);
    expect(s.spike!.recovery_s).toBeNull();
  });

  test('shards merged from halves of the requests give the whole run’s section', () => {
    const whole = buildPatternSection(run(spikeLoad, slowUntil(11_500)).facts);
    const halves = [0, 1].map((k) => buildPatternSection(run(spikeLoad, slowUntil(11_500), { rate: 40, keep: (i) => i % 2 === k }).facts));
    const merged = mergePatternSections(halves, true, resolveSpec({ target: { url: 'sim' } }).spec.gate, 40)!;
    expect(merged.phases.map((p) => p.scheduled)).toEqual(whole.phases.map((p) => p.scheduled));
    expect(merged.series.scheduled).toEqual(whole.series.scheduled);
    expect(merged.spike!.recovery_s).toBe(whole.spike!.recovery_s);
    expect(merged.phases[1].ttft_ms!.p99).toBe(whole.phases[1].ttft_ms!.p99);
    expect(mergePatternSections([halves[0], undefined], true, resolveSpec({ target: { url: 'sim' } }).spec.gate, 40)).toBeUndefined();
  });

  test('replicates (one after another) add their counts but keep one run’s rates', () => {
    const one = buildPatternSection(run(spikeLoad, slowUntil(11_500)).facts);
    const two = mergePatternSections([one, one], false, resolveSpec({ target: { url: 'sim' } }).spec.gate, 40)!;
    expect(two.phases.map((p) => p.scheduled)).toEqual(one.phases.map((p) => 2 * p.scheduled));
    expect(two.phases.map((p) => p.offered_rate_per_s)).toEqual(one.phases.map((p) => p.offered_rate_per_s));
    expect(two.phases.map((p) => p.achieved_rate_per_s)).toEqual(one.phases.map((p) => p.achieved_rate_per_s));
    expect(two.series.offered_per_s).toEqual(one.series.offered_per_s);
    expect(two.spike!.recovery_s).toBe(one.spike!.recovery_s);
  });
});

describe('the soak section judges drift like the gate', () => {
  const soak = { rate: 50, warmup: '1s', steady: '40s', cooldown: '0s', soak: { segments: 4 } };
  const gate = { latency: { ttft_p95: { max_increase_pct: 10, max_increase_ms: 5 } } };

  test('a 30 % rise from the first to the last segment is drift, beyond its bootstrap bound', () => {
    const s = buildPatternSection(run(soak, (t) => 100 * (1 + (0.3 * t) / 41_000), { rate: 50, gate }).facts);
    const d = s.soak!.drift.ttft_p95;
    expect(d.verdict).toBe('drift');
    expect(d.change!.rel!).toBeGreaterThan(0.15);
    expect(d.ci!.lower).toBeGreaterThan(d.bound!);
    expect(s.soak!.segments).toBe(4);
  });

  test('the same server without the slowdown shows none; a 10 % rise sits within the bound', () => {
    expect(buildPatternSection(run(soak, () => 100, { rate: 50, gate }).facts).soak!.drift.ttft_p95.verdict).toBe('none');
    const small = buildPatternSection(run(soak, (t) => 100 * (1 + (0.1 * t) / 41_000), { rate: 50, gate }).facts).soak!.drift.ttft_p95;
    expect(small.verdict).toBe('none');
  });

  test('too few tail samples per segment is inconclusive, not "none"', () => {
    const s = buildPatternSection(run({ ...soak, rate: 2 }, () => 100, { rate: 2, gate }).facts);
    expect(s.soak!.drift.ttft_p95.verdict).toBe('inconclusive');
    expect(s.soak!.drift.ttft_p95.reason).toMatch(/too few samples: needs ≥ 200 per segment/);
  });
});
