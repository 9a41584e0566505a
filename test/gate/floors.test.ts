/**
 * The latency rules' absolute floors are what the two runs resolve (src/gate/floors.ts), not
 * fixed constants: on a fast engine (TTFT ~30 ms, TPOT ~3.5 ms) the old 20 ms and 2 ms floors
 * were larger than a 30–50 % slowdown. Results come from the real recorder (real histograms), with
 * the generator's timestamp error bound set as this machine's runs report it when busy.
 */
import { compare } from '../../src/gate/compare.js';
import { FLOOR_ERROR_MULTIPLE, latencyFloor } from '../../src/gate/floors.js';
import { errorBound } from '../../src/gate/timing-validity.js';
import type { GateReport, RuleOutcome } from '../../src/gate/types.js';
import { defaultGate, FIXED_FLOOR_MS, resolveGate } from '../../src/spec/gate-schema.js';
import type { Result } from '../../src/result/types.js';
import { lognormal, synthesize } from '../result/synthetic.js';
import { measuredCalibration } from './calibration-fixture.js';

const rule = (report: GateReport, id: string): RuleOutcome => report.rules.find((r) => r.id === id)!;
/** p99 of 2.5 ms: a shared 2-core machine's generator under load. */
const BUSY = { p50: 0.4, p90: 1, p99: 2.5 };

function fastEngine(seed: number, slowdown = 1): Result {
  const r = synthesize({
    n: 2000,
    seed,
    tokens: 64,
    ttft: (rng) => lognormal(30, 0.15)(rng) * slowdown,
    itl: (rng) => lognormal(3.5, 0.15)(rng) * slowdown,
  });
  Object.assign(r.generator, { timestamp_error_ms: BUSY });
  return r;
}

const base = fastEngine(1);
/** The default rules under the fixed floors they had before (FIXED_FLOOR_MS), for comparison. */
const fixedFloors = resolveGate({
  latency: Object.fromEntries(Object.entries(FIXED_FLOOR_MS).map(([k, ms]) => [k, { max_increase_ms: ms }])),
});

test('a 50 % TTFT and TPOT slowdown of a 30 ms-TTFT engine fails the default gate; the fixed floors hid it', () => {
  // Halving a llama.cpp server's threads raised its TTFT p95 by ~53 % and TPOT p50 by ~46 %, and
  // both passed under the fixed floors (20 ms, 2 ms), larger than the whole change.
  const slow = fastEngine(2, 1.5);
  const report = compare(base, slow, defaultGate());
  expect(report.verdict).toBe('fail');
  for (const id of ['latency.ttft_p95', 'latency.tpot_p50', 'latency.tpot_p95']) {
    const r = rule(report, id);
    if (r.status !== 'fail') throw new Error(`${id} ${r.status}: ${r.limit}: ${r.reason}`);
    expect(r.limit).toMatch(/what the runs resolve/);
  }
  // The TTFT p95 floor: 4 × the larger bound at p95 (between the p90 and p99 figures), plus quantization.
  const ttft = rule(report, 'latency.ttft_p95');
  const e = errorBound(base, 95, 'ttft').ms;
  expect(e).toBeGreaterThan(BUSY.p90);
  expect(e).toBeLessThan(BUSY.p99);
  expect(ttft.threshold!).toBeGreaterThanOrEqual(FLOOR_ERROR_MULTIPLE * e);
  expect(ttft.threshold!).toBeLessThan(FLOOR_ERROR_MULTIPLE * e + 0.2);
  // The same pair under the old fixed floors (20 ms, 2 ms) passes TTFT p95 and TPOT p50: the change is within them.
  const old = compare(base, slow, fixedFloors);
  for (const id of ['latency.ttft_p95', 'latency.tpot_p50']) expect(rule(old, id).status).toBe('pass');
});

test('a 30 % slowdown of the same engine: within the assumed spread of two single runs, caught once the spread is measured', () => {
  const slow = fastEngine(2, 1.3);
  // One run a side and nothing measured: the assumed 10 % between-run CV of each side puts the
  // bound near +33 %, and each rule says what it would have caught.
  const single = compare(base, slow, defaultGate());
  for (const id of ['latency.ttft_p95', 'latency.tpot_p50', 'latency.tpot_p95']) {
    const r = rule(single, id);
    expect(r.status).toBe('pass');
    expect(r.noise).toMatchObject({ between_run_cv: 0.1, source: expect.arrayContaining(['assumed']) });
    expect(r.mde!.rel!).toBeGreaterThan(0.3);
  }
  // A deployment whose calibration measured a 3 % spread: the same rise fails TTFT and TPOT under
  // the floors the runs resolve, and passes them under the fixed floors.
  const calibration = measuredCalibration(base.spec_hash, {
    'ttft_ms.p95': 0.03,
    'tpot_ms.p50': 0.03,
    'tpot_ms.p95': 0.03,
    'e2e_ms.p95': 0.03,
    'itl_ms.p99': 0.03,
  });
  const measured = compare(base, slow, defaultGate(), { calibration });
  expect(measured.verdict).toBe('fail');
  for (const id of ['latency.ttft_p95', 'latency.tpot_p50', 'latency.tpot_p95']) {
    const r = rule(measured, id);
    if (r.status !== 'fail') throw new Error(`${id} ${r.status}: ${r.limit}: ${r.reason}`);
  }
  const old = compare(base, slow, fixedFloors, { calibration });
  for (const id of ['latency.ttft_p95', 'latency.tpot_p50', 'latency.tpot_p95']) expect(rule(old, id).status).toBe('pass');
});

test('A/A on the same engine passes every rule with the derived floors, and each rule says what it can catch', () => {
  for (const seed of [2, 3, 4, 5]) {
    const report = compare(base, fastEngine(seed), defaultGate());
    expect(report.rules.filter((r) => r.status !== 'pass').map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
    for (const r of report.rules.filter((x) => x.id.startsWith('latency.'))) expect(r.reason).toMatch(/would have been caught/);
  }
});

test("a fixed max_increase_ms in the spec replaces the derived floor; a run's larger error bound raises it", () => {
  const rule20 = { max_increase_pct: 10, max_increase_ms: 20, warn_only: false, enabled: true };
  expect(latencyFloor('ttft_p95', rule20, base, null, 30)).toMatchObject({ ms: 20, source: 'spec' });
  const auto = { max_increase_pct: 10, warn_only: false, enabled: true };
  const quiet = latencyFloor('ttft_p95', auto, base, null, 30).ms;
  const noisy = fastEngine(3);
  Object.assign(noisy.generator, { timestamp_error_ms: { p50: 1, p90: 3, p99: 8 } });
  expect(latencyFloor('ttft_p95', auto, base, noisy, 30).ms).toBeGreaterThan(2 * quiet);
});
