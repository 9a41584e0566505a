/**
 * Between-run variance in the noise model, with results built by the real recorder
 * and merged by the real merge: segments (drift within a run), replicate CVs, calibration files.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng, normal } from '../../src/rng.js';
import { calibrationFrom, loadCalibration } from '../../src/gate/calibration.js';
import { compare } from '../../src/gate/compare.js';
import { resolveGate, type GateSpec } from '../../src/spec/gate-schema.js';
import type { GateReport, RuleOutcome } from '../../src/gate/types.js';
import { mergeResults } from '../../src/result/merge.js';
import { parseResult } from '../../src/result/load.js';
import type { Result } from '../../src/result/types.js';
import { lognormal, synthesize } from '../result/synthetic.js';

const rule = (report: GateReport, id: string): RuleOutcome => report.rules.find((r) => r.id === id)!;

/**
 * One run of a deployment `factor` times slower than nominal (TTFT and every token gap), sized so
 * each default rule's relative limit is above its absolute floor (TTFT p95 ~420 ms: 10 % is 42 ms).
 */
const runAt = (factor: number, seed: number, n = 1000, tokens = 20) =>
  synthesize({ n, seed, tokens, ttft: (rng) => lognormal(300, 0.2)(rng) * factor, itl: (rng) => lognormal(40, 0.2)(rng) * factor });

/** Per-run slowdown factors: lognormal with CV ≈ 10 % (σ = 0.1), seeded. */
function factors(seed: number, count: number): number[] {
  const rng = createRng(seed);
  return Array.from({ length: count }, () => Math.exp(0.1 * normal(rng)));
}

const replicated = (fs: number[], seed: number) => mergeResults(fs.map((f, i) => runAt(f, seed * 100 + i, 600)));

describe('segments: drift within a run', () => {
  test('the result records per-segment percentiles by intended send time, and they survive a JSON round trip', () => {
    const r = runAt(1, 1, 2000);
    expect(r.segments!.count).toBe(8);
    expect(r.segments!.ttft_ms.n.reduce((a, b) => a + b, 0)).toBe(2000);
    expect(r.segments!.itl_ms.n.reduce((a, b) => a + b, 0)).toBe(2000 * 19);
    expect(r.segments!.ttft_ms.p50.every((v) => v !== null && v > 240 && v < 375)).toBe(true);
    expect(parseResult(JSON.stringify(r), 'r.json').segments).toEqual(r.segments);
  });

  test('a run that slows down during its window gets its interval widened, and the rule records it', () => {
    const drifting = synthesize({ n: 2000, seed: 5, ttft: (rng, i) => lognormal(100, 0.2)(rng) * (i < 1000 ? 0.9 : 1.1) });
    const steady = runAt(1, 6, 2000);
    const report = compare(runAt(1, 7, 2000), drifting, resolveGate({}));
    const ttft = rule(report, 'latency.ttft_p95');
    expect(ttft.noise!.source).toContain('segments');
    const calm = rule(compare(runAt(1, 7, 2000), steady, resolveGate({})), 'latency.ttft_p95');
    expect(ttft.noise!.within_run!).toBeGreaterThan(3);
    expect(ttft.noise!.within_run!).toBeGreaterThan(3 * (calm.noise!.within_run ?? 0));
    expect(ttft.reason).toMatch(/noise: bootstrap \+ segments \(drift ±\d/);
    const off = rule(compare(runAt(1, 7, 2000), drifting, resolveGate({ noise: { segments: false } })), 'latency.ttft_p95');
    expect(off.noise!.source).toEqual(['bootstrap', 'assumed']);
    expect(ttft.ci!.upper - ttft.ci!.lower).toBeGreaterThan(off.ci!.upper - off.ci!.lower);
  });
});

describe('between-run spread', () => {
  const gate = resolveGate({});
  // The study compares many pairs: fewer bootstrap iterations keep it to seconds.
  // Regression rules only: the runs' absolute SLOs (TPOT ≤ 50 ms, …) are not what is studied.
  const off = { enabled: false };
  const regressions = { slo: { ttft_p95: off, goodput_fraction: off } };
  const quick = resolveGate({ ...regressions, bootstrap_iterations: 300 });
  const quickLegacy = resolveGate({ ...regressions, bootstrap_iterations: 300, noise: { segments: false, between_run: false } });

  test('with a seeded per-run slowdown (CV 10 %), A/A comparisons that fail today pass; a 30 % regression still fails', () => {
    const pairs = 16;
    // Some two hundred runs: eight tokens a request keeps their cost (their token gaps) to seconds,
    // and the rules read one TPOT per request whatever its length.
    const studyRun = (factor: number, seed: number) => runAt(factor, seed, 600, 8);
    const fs = factors(42, pairs * 12);
    // The deployment calibrated once: 10 short A/A runs.
    const calibration = calibrationFrom(replicated(factors(43, 10), 4242));
    let today = 0;
    let now = 0;
    let detected = 0;
    const mdes: number[] = [];
    for (let i = 0; i < pairs; i++) {
      const f = fs.slice(i * 12, i * 12 + 12);
      const pr = studyRun(f[1], i * 10 + 2);
      // Today: a single-run baseline against a single run, sampling noise only.
      if (compare(studyRun(f[0], i * 10 + 1), pr, quickLegacy).verdict === 'fail') today++;
      // The nightly baseline records 3 replicates; the pull request runs once and is judged with their spread.
      const runs = f.slice(2, 7).map((x, k) => studyRun(x, i * 100 + k));
      const aa = compare(mergeResults(runs.slice(0, 3)), pr, quick);
      if (aa.verdict === 'fail') now++;
      mdes.push(rule(aa, 'latency.ttft_p95').mde!.rel!);
      // A 30 % slower deployment, 5 replicates a side, with the calibration's spread.
      const slower = mergeResults(f.slice(7, 12).map((x, k) => studyRun(x * 1.3, i * 100 + 50 + k)));
      if (compare(mergeResults(runs), slower, quick, { calibration }).verdict === 'fail') detected++;
    }
    expect(today).toBeGreaterThanOrEqual(4);
    expect(now).toBeLessThanOrEqual(1);
    expect(detected).toBeGreaterThanOrEqual(10);
    // What a single-run pull request against a 3-replicate baseline can still see at CV 10 %:
    // about a 50 % rise (the 3 replicates' CV is itself uncertain: Student's t with 2 degrees of freedom).
    const median = mdes.sort((a, b) => a - b)[pairs / 2];
    expect(median).toBeGreaterThan(0.3);
    expect(median).toBeLessThan(0.8);
  });

  test('a current run of one replicate is judged with the baseline’s spread on both sides, and the reason says so', () => {
    const report = compare(replicated([1, 1.05, 0.95], 1), runAt(1, 9), gate);
    const ttft = rule(report, 'latency.ttft_p95');
    expect(ttft.noise).toMatchObject({ source: ['bootstrap', 'segments', 'replicates'] });
    expect(ttft.noise!.between_run_cv).toBeGreaterThan(0.03);
    expect(ttft.reason).toMatch(
      /the current run is one replicate, judged with the baseline's between-run CV \d+\.\d+ % \(3 replicates\) on both sides/,
    );
  });

  test('a replicate set with CV 20 % makes the verdict inconclusive, "the environment is unstable", with the figure', () => {
    const unstable = replicated([0.75, 0.88, 1.0, 1.12, 1.25], 3);
    expect(unstable.replicates!.cv['ttft_ms.p95']).toBeGreaterThan(0.17);
    const report = compare(unstable, runAt(1, 4, 600), gate);
    expect(report.verdict).toBe('inconclusive');
    const check = report.checks.find((c) => c.name === 'between_run_cv' && c.scope === 'baseline')!;
    expect(check.ok).toBe(false);
    expect(check.message).toMatch(
      /^the environment is unstable: between-run CV TTFT p95 (18|19|20|21)\.\d % \(≥ 1\d\.\d % at 95\.0 % confidence\), .* across 5 runs exceeds 10\.0 % \(gate\.max_cv\)/,
    );
    // Every metric drifts here, so every latency rule is inconclusive, each naming its own figure.
    const ttft = rule(report, 'latency.ttft_p95');
    expect(ttft.status).toBe('inconclusive');
    expect(ttft.reason).toMatch(
      /^the environment is unstable for TTFT p95: between-run CV (18|19|20|21)\.\d % \(≥ 1\d\.\d % at 95\.0 % confidence\) across 5 baseline runs exceeds 10\.0 % \(gate\.max_cv\); measured: /,
    );
    expect(report.reasons).toContain(`${ttft.rule}: ${ttft.reason}`);
    expect(report.rules.filter((r) => r.id.startsWith('latency.')).every((r) => r.status === 'inconclusive')).toBe(true);
    // gate.max_cv raises the bar; rules on error counts are judged anyway.
    expect(compare(unstable, runAt(1, 4, 600), resolveGate({ max_cv: 0.3 })).verdict).toBe('pass');
    const failing = synthesize({ n: 600, outcome: (i) => (i % 4 ? 'ok' : 'http_5xx') });
    expect(compare(unstable, failing, gate).verdict).toBe('fail');
  });
});

describe('an unstable environment, judged per metric', () => {
  const gate: GateSpec = resolveGate({});
  /** Replicates whose TTFT drifts by `fs` while the token gaps stay put (queueing moves TTFT's tail, not the decode). */
  const ttftDrifting = (fs: number[], seed: number) =>
    mergeResults(
      fs.map((f, i) =>
        synthesize({ n: 600, seed: seed * 100 + i, ttft: (rng) => lognormal(300, 0.2)(rng) * f, itl: (rng) => lognormal(40, 0.2)(rng) }),
      ),
    );
  const unstable = ttftDrifting([0.75, 0.88, 1.0, 1.12, 1.25], 5);

  test('only the rules on the unstable metric are inconclusive; the others stay judged', () => {
    expect(unstable.replicates!.cv['ttft_ms.p95']).toBeGreaterThan(0.17);
    expect(unstable.replicates!.cv['tpot_ms.p50']).toBeLessThan(0.05);
    const report = compare(unstable, runAt(1, 4, 600), gate);
    expect(rule(report, 'latency.ttft_p95').status).toBe('inconclusive');
    expect(rule(report, 'latency.ttft_p95').reason).toMatch(/^the environment is unstable for TTFT p95: /);
    for (const id of ['latency.tpot_p50', 'latency.tpot_p95', 'latency.itl_p99']) expect(rule(report, id).status).toBe('pass');
    // Nothing failed and one rule could not be judged: the verdict is not a pass.
    expect(report.verdict).toBe('inconclusive');
    const check = report.checks.find((c) => c.name === 'between_run_cv' && c.scope === 'baseline')!;
    expect(check).toMatchObject({ ok: false, effect: 'rules' });
    expect(check.message).toMatch(
      /^the environment is unstable: between-run CV TTFT p95 .* the rules on (that metric are|those metrics are) inconclusive$/,
    );
  });

  test('a regression on a stable metric fails the build even while another metric is unstable', () => {
    const slowDecode = synthesize({
      n: 600,
      seed: 4,
      ttft: (rng) => lognormal(300, 0.2)(rng),
      itl: (rng) => lognormal(40, 0.2)(rng) * 1.4,
    });
    const report = compare(unstable, slowDecode, gate);
    expect(rule(report, 'latency.tpot_p50').status).toBe('fail');
    expect(rule(report, 'latency.ttft_p95').status).toBe('inconclusive');
    expect(report.verdict).toBe('fail');
  });
});

describe('calibration files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadgate-calibration-'));
  const gate: GateSpec = resolveGate({});

  test('written from a replicate set, loaded back, applied to both sides of a single-run comparison', () => {
    const cal = calibrationFrom(replicated(factors(7, 5), 7));
    expect(cal).toMatchObject({ kind: 'loadgate-calibration', version: 1, replicates: 5 });
    const path = join(dir, 'cal.json');
    writeFileSync(path, JSON.stringify(cal));
    const loaded = loadCalibration(path);
    expect(loaded.cv['ttft_ms.p95']).toBeCloseTo(cal.cv['ttft_ms.p95'], 9);
    const base: Result = runAt(1, 11);
    const cur = runAt(1.3, 12);
    // Against the bootstrap alone (nothing assumed), the measured spread widens the interval.
    const without = rule(compare(base, cur, resolveGate({ noise: { assumed_cv: 0 } })), 'latency.ttft_p95');
    const withCal = rule(compare(base, cur, gate, { calibration: loaded }), 'latency.ttft_p95');
    expect(without.status).toBe('fail');
    expect(withCal.noise!.source).toContain('calibration');
    expect(withCal.noise!.between_run_cv).toBeCloseTo(loaded.cv['ttft_ms.p95'], 9);
    expect(withCal.ci!.lower).toBeLessThan(without.ci!.lower);
    expect(withCal.mde!.abs).toBeGreaterThan(without.mde!.abs);
    const report = compare(base, cur, gate, { calibration: loaded });
    expect(report.noise.sources).toEqual(expect.arrayContaining(['bootstrap', 'calibration']));
    expect(report.checks.find((c) => c.scope === 'calibration')).toMatchObject({ name: 'between_run_cv' });
  });

  test('a bad calibration file is one line naming the file and what is wrong', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ kind: 'loadgate-calibration', version: 1 }));
    expect(() => loadCalibration(bad)).toThrow(
      /^calibration file .*bad\.json: the document must have required property 'created_at'; expected a file written by loadgate calibrate$/,
    );
    expect(() => loadCalibration(join(dir, 'missing.json'))).toThrow(
      /^calibration file .*missing\.json: file not found; write one with loadgate calibrate SPEC --out /,
    );
    writeFileSync(bad, '{');
    expect(() => loadCalibration(bad)).toThrow(/not JSON/);
  });
});
