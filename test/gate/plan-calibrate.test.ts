/**
 * Planning and calibration from the command line: `loadgate calibrate` against the embedded
 * simulator writes a calibration file that `compare --calibration` applies, and `loadgate plan`
 * predicts what it takes to detect a change — checked against seeded comparisons at the window
 * it asks for.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCalibration } from '../../src/gate/calibration.js';
import { compare } from '../../src/gate/compare.js';
import { planDetection } from '../../src/gate/plan.js';
import { resolveGate } from '../../src/spec/gate-schema.js';
import { ROOT } from '../action/harness.js';
import { lognormal, synthesize } from '../result/synthetic.js';

const dir = mkdtempSync(join(tmpdir(), 'loadgate-plan-'));

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'loadgate.js'), ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test('loadgate calibrate runs A/A replicates against the target and writes a calibration file compare applies', async () => {
  writeFileSync(
    join(dir, 'sim.yml'),
    `name: calibrate-test
target: { url: sim, sim: { mode: paced, ttft_ms: 15, itl_ms: 2 } }
workload: { seed: 3, input_tokens: 24, output_tokens: 12 }
load: { arrival: constant, rate: 20, warmup: 300ms, steady: 1s, cooldown: 0s }
`,
  );
  const run = await cli(['calibrate', 'sim.yml', '--replicates', '3', '--out', 'cal.json']);
  expect(run.stderr).toContain('calibration run 3/3');
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^Between-run CV across 3 runs: ttft_ms\.p95 \d+\.\d+ %/);
  const cal = loadCalibration(join(dir, 'cal.json'));
  expect(cal).toMatchObject({ kind: 'loadgate-calibration', replicates: 3, spec_name: 'calibrate-test' });
  expect(Object.keys(cal.cv)).toEqual(expect.arrayContaining(['ttft_ms.p95', 'throughput.output_tokens_per_s']));

  const ttft = lognormal(240, 0.2);
  writeFileSync(join(dir, 'a.json'), JSON.stringify(synthesize({ n: 1000, ttft })));
  writeFileSync(join(dir, 'b.json'), JSON.stringify(synthesize({ n: 1000, ttft, seed: 2 })));
  const judged = await cli(['compare', 'a.json', 'b.json', '--calibration', 'cal.json', '--json']);
  const report = JSON.parse(judged.stdout) as { noise: { sources: string[] }; rules: { id: string; noise?: { source: string[] } }[] };
  expect(report.noise.sources).toContain('calibration');
  expect(report.rules.find((r) => r.id === 'latency.ttft_p95')!.noise!.source).toContain('calibration');
  const text = await cli(['compare', 'a.json', 'b.json', '--calibration', 'cal.json']);
  expect(text.stdout).toMatch(/Noise model: .*calibration file \(between-run CV from loadgate calibrate\) \(calibration of 3 runs/);

  expect(await cli(['calibrate', 'sim.yml', '--replicates', '2'])).toMatchObject({ code: 3 });
  const missing = await cli(['compare', 'a.json', 'b.json', '--calibration', 'nope.json']);
  expect(missing.code).toBe(3);
  expect(missing.stderr).toMatch(/^loadgate compare: calibration file nope\.json: file not found/);
}, 60_000);

test('loadgate calibrate --from writes the calibration from runs already measured, the same as from a merged set', async () => {
  // Three A/A runs of one deployment, each a little faster or slower (a real engine's drift).
  const runs = [0.9, 1, 1.1].map((f, i) => synthesize({ n: 600, seed: 20 + i, ttft: (rng) => lognormal(240, 0.2)(rng) * f }));
  const paths = runs.map((r, i) => {
    const p = `rep${i}.json`;
    writeFileSync(join(dir, p), JSON.stringify(r));
    return p;
  });
  const out = await cli(['calibrate', '--from', ...paths, '--out', 'from.json']);
  expect(out.stderr).toBe('');
  expect(out.code).toBe(0);
  expect(out.stdout).toMatch(/^Between-run CV across 3 runs: ttft_ms\.p95 (8|9|10|11|12)\.\d+ %/);
  const cal = loadCalibration(join(dir, 'from.json'));
  expect(cal).toMatchObject({ kind: 'loadgate-calibration', replicates: 3 });
  // The same set merged first gives the same figures.
  expect((await cli(['merge', ...paths, '--out', 'merged.json'])).code).toBe(0);
  expect((await cli(['calibrate', '--from', 'merged.json', '--out', 'from-merged.json'])).code).toBe(0);
  expect(loadCalibration(join(dir, 'from-merged.json')).cv).toEqual(cal.cv);
  // Too few runs: one line, exit 3, nothing written.
  const few = await cli(['calibrate', '--from', paths[0], paths[1], '--out', 'few.json']);
  expect(few.code).toBe(3);
  expect(few.stderr).toBe('loadgate calibrate: --from: 2 results; a spread needs at least 3 runs of one spec\n');
  const one = await cli(['calibrate', '--from', paths[0]]);
  expect(one.stderr).toBe(`loadgate calibrate: --from: ${paths[0]} holds 1 run; a spread needs at least 3 runs of one spec\n`);
}, 30_000);

describe('loadgate plan', () => {
  const ttft = lognormal(240, 0.2);
  // 20 req/s for 50 s: TTFT p95 ~335 ms; its rule allows 10 % (33.5 ms).
  const baseline = synthesize({ n: 1000, windowS: 50, ttft });

  test('a change within what the rule allows can never be detected, and the plan says so', async () => {
    writeFileSync(join(dir, 'base.json'), JSON.stringify(baseline));
    writeFileSync(
      join(dir, 'spec.yml'),
      `name: synthetic\ntarget: { url: "http://127.0.0.1:9/v1", model: test-model }\nload: { rate: 20, steady: 50s }\n`,
    );
    const out = await cli(['plan', 'spec.yml', '--baseline', 'base.json', '--detect', '5%']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /TTFT p95 \(baseline 3\d\d\.\d ms, allows \+3\d\.\d ms\): detecting \+1\d\.\d ms — impossible: the rule allows/,
    );
    const json = await cli(['plan', 'spec.yml', '--baseline', 'base.json', '--detect', '60%', '--json']);
    const plans = JSON.parse(json.stdout) as { id: string; window_s: number; replicates: number; cv_source: string }[];
    expect(plans.find((p) => p.id === 'latency.ttft_p95')).toMatchObject({ window_s: expect.any(Number), cv_source: 'assumed' });
    // +40 %: the assumed 10 % between-run CV of two single runs (±14 %) leaves no single window
    // long enough for 80 % power (that needs about 10 % + (1.645 + 0.84) × 14 % ≈ +45 %); replicates can.
    const forty = await cli(['plan', 'spec.yml', '--baseline', 'base.json', '--detect', '40%']);
    expect(forty.stdout).toMatch(
      /TTFT p95 .*no single-run window is long enough .*; or [2-9] replicate\(s\) a side .*\(between-run CV 10\.0 % assumed \(gate\.noise\.assumed_cv\)/,
    );
    expect((await cli(['plan', 'spec.yml', '--baseline', 'base.json', '--detect', 'lots'])).stderr).toMatch(
      /--detect is "lots"; expected a relative change such as 10% or 0.1/,
    );
  }, 30_000);

  test('its window predicts detection: at the planned window a 20 % rise of TTFT p95 is caught about 80 % of the time', () => {
    // These synthetic runs do not drift between runs: nothing assumed, sampling noise alone.
    const gate = resolveGate({ bootstrap_iterations: 300, noise: { assumed_cv: 0 } });
    const plan = planDetection({ baseline, gate, detect: 0.2, rate: 20, windowS: 50, calibration: null }).find(
      (p) => p.id === 'latency.ttft_p95',
    )!;
    expect(plan.window_s).toBeGreaterThan(5);
    const n = Math.round(plan.window_s! * 20);
    let caught = 0;
    const pairs = 20;
    for (let i = 0; i < pairs; i++) {
      const a = synthesize({ n, windowS: plan.window_s!, ttft, seed: 100 + i });
      const b = synthesize({ n, windowS: plan.window_s!, ttft: (rng) => ttft(rng) * 1.2, seed: 200 + i });
      if (compare(a, b, gate).rules.find((r) => r.id === 'latency.ttft_p95')!.status === 'fail') caught++;
    }
    // 80 % predicted; 20 pairs put the count between 11 and 20 with 99 % probability.
    expect(caught).toBeGreaterThanOrEqual(11);
  });
});
