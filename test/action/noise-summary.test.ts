/**
 * The pull request gate's summary says which noise source the verdict used, and the
 * action's calibration input reaches the comparison — through the real bundled dist/index.js.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calibrationFrom } from '../../src/gate/calibration.js';
import { mergeResults } from '../../src/result/merge.js';
import { lognormal, synthesize } from '../result/synthetic.js';
import { pullRequestEvent, runAction, tempDir } from './harness.js';

const ttft = lognormal(240, 0.2);
const run = (seed: number, factor = 1) => synthesize({ n: 600, seed, ttft: (rng) => ttft(rng) * factor });

function workspace(baseline: object): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'baseline.json'), JSON.stringify(baseline));
  writeFileSync(join(dir, 'current.json'), JSON.stringify(run(9)));
  return dir;
}

const gate = (dir: string, inputs: Record<string, string> = {}) =>
  runAction({
    workspace: dir,
    event: pullRequestEvent(41),
    inputs: { result: 'current.json', baseline: 'baseline.json', comment: 'never', 'github-token': '', ...inputs },
  });

test('a single-run baseline: the summary names the sources and says the between-run spread was assumed, not measured', async () => {
  const result = await gate(workspace(run(1)));
  expect(result.outputs.verdict).toBe('pass');
  expect(result.summary).toMatch(
    /\*\*Noise model: bootstrap of the histograms .*an assumed between-run CV for latency percentiles \(gate\.noise\.assumed\\_cv\) — no between-run spread was measured, so it was assumed: record the baseline with replicates ≥ 3 or run loadgate calibrate to measure it/,
  );
  expect(result.summary).toMatch(/✅ pass<br><sub>would catch ≥ \+\d+\.\d+ %/);
}, 30_000);

test('a replicated baseline, then a calibration input: the summary names the between-run source used', async () => {
  const dir = workspace(mergeResults([run(1), run(2, 1.04), run(3, 0.97)]));
  // A calibration of 5 runs rests on more runs than the baseline's 3: its CVs are used instead.
  writeFileSync(
    join(dir, 'cal.json'),
    JSON.stringify(calibrationFrom(mergeResults([1, 1.03, 0.98, 1.01, 0.99].map((f, i) => run(20 + i, f))))),
  );
  // Three judgements of files (the calibration only where the input names it): started together.
  const [replicated, result, missing] = await Promise.all([
    gate(dir),
    gate(dir, { calibration: 'cal.json' }),
    gate(dir, { calibration: 'nope.json' }),
  ]);
  expect(replicated.summary).toMatch(/\*\*Noise model: .*; replicate spread \(between-run CV of merged replicates\)\.\*\*/);
  expect(result.summary).toMatch(
    /\*\*Noise model: .*; calibration file \(between-run CV from loadgate calibrate\) \(calibration of 5 runs, /,
  );
  expect(missing.code).toBe(3);
  expect(missing.stdout).toMatch(
    /^::error::calibration file nope\.json: file not found; write one with loadgate calibrate SPEC --out nope\.json$/m,
  );
}, 30_000);
