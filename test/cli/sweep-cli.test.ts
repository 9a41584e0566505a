import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSweep } from '../../src/capacity/load.js';
import { curvePoints, sweepDocument, sweepSpec } from '../capacity/fixtures.js';
import { ENGINE } from '../sweep/helpers.js';
import { CLI, loadgate } from '../fixtures/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'loadgate-sweep-cli-'));

test('sweep --help, and a spec without a sweep section or with a bad one is refused in one line before any load', async () => {
  const help = await loadgate(['sweep', '--help']);
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/^Usage: loadgate sweep SPEC/);
  const none = await loadgate(['sweep', 'examples/quickstart.yml']);
  expect(none.code).toBe(3);
  expect(none.stderr).toBe(
    'loadgate sweep: examples/quickstart.yml: has no sweep section; add e.g. "sweep: auto", "sweep: { rates: [5, 10, 20] }" or "sweep: { concurrency: [1, 4, 16] }"\n',
  );
  const spec = join(tmp(), 'bad.yml');
  writeFileSync(spec, 'target: { url: sim }\nsweep: { rates: [5], concurrency: [2] }\n');
  for (const cmd of ['sweep', 'validate']) {
    const bad = await loadgate([cmd, spec]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toBe(
      `loadgate ${cmd}: ${spec}: sweep gives rates and concurrency; expected exactly one way of choosing the points\n`,
    );
  }
  expect((await loadgate(['validate', 'examples/sweep.yml'])).code).toBe(0);
});

test('Ctrl-C during a sweep keeps the points measured so far: the document, its report and an inconclusive gate', async () => {
  const dir = tmp();
  const spec = join(dir, 'sweep.yml');
  writeFileSync(
    spec,
    `target: { url: sim, sim: ${JSON.stringify(ENGINE)} }
workload: { input_tokens: 50, output_tokens: 10, calibrate: off }
load: { arrival: constant, warmup: 300ms, steady: 2s, cooldown: 0s }
sweep: { rates: [4, 8, 12] }
`,
  );
  const out = join(dir, 'sweep.json');
  const child = spawn(process.execPath, [CLI, 'sweep', spec, '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  const code = await new Promise<number | null>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
      // Plain lines on a pipe: one when a point starts, one with its figures when it ends.
      if (/point 2\/3 \(step, open-loop 8 req\/s\): measuring/.test(stderr) && !child.killed) setTimeout(() => child.kill('SIGINT'), 1200);
    });
    child.once('exit', resolve);
  });
  expect(stderr).toMatch(
    /point 1\/3 \(step, open-loop 4 req\/s\): completed [\d.]+ req\/s of [\d.]+ offered · TTFT p50 [\d.]+ ms p99 [\d.]+ ms · goodput [\d.]+ % · (not )?valid\n/,
  );
  expect(stderr).toContain('interrupted: stopping the point in progress and writing the points measured so far');
  expect(code).toBe(2);
  const doc = readSweep(out);
  expect(doc.interrupted).toBe(true);
  expect(doc.points.map((p) => p.rate_per_s)).toEqual([4, 8]);
  expect(doc.points[1].result.load.interrupted).toBe(true);
  expect(doc.skipped_loads).toEqual([12]);
  expect(stdout).toContain('(INTERRUPTED: the points measured so far)');
  // Every scheduled request of the interrupted point is accounted for.
  const r = doc.points[1].result;
  expect(Object.values(r.requests.by_class).reduce((a, b) => a + b, 0)).toBe(r.requests.scheduled);

  const html = join(dir, 'sweep.html');
  const md = join(dir, 'sweep.md');
  const rep = await loadgate(['report', out, '--html', html, '--markdown', md]);
  expect(rep.code).toBe(0);
  expect(rep.stdout).toBe(`sweep report written to ${md} and ${html}\n`);
  expect(readFileSync(html, 'utf8')).toContain('<b class="fail">interrupted</b>');
  const gate = await loadgate(['compare', out, out]);
  expect(gate.code).toBe(2);
  expect(gate.stdout).toMatch(/^Verdict {2}INCONCLUSIVE\n/);
  expect(gate.stdout).toContain('the sweep was interrupted');
}, 60_000);

test('compare judges a sweep against a baseline sweep: a capacity drop fails with exit 1, the same capacity passes', async () => {
  const dir = tmp();
  const spec = sweepSpec();
  const rates = [4, 8, 16, 24, 28, 32, 36, 48, 60];
  const write = (name: string, scale: number, seed = 0) => {
    const f = join(dir, name);
    writeFileSync(f, JSON.stringify(sweepDocument(curvePoints(rates, scale, seed), spec)));
    return f;
  };
  const base = write('base.json', 1);
  const fail = await loadgate(['compare', base, write('slow.json', 0.7)]);
  expect(fail.code).toBe(1);
  expect(fail.stdout).toMatch(/^Verdict {2}FAIL\n/);
  expect(fail.stdout).toMatch(/capacity at SLO may fall ≤ 10 %: fell from 32 to 16 req\/s/);
  const pass = await loadgate(['compare', base, write('same.json', 1, 3), '--markdown', join(dir, 'gate.md')]);
  expect(pass.code).toBe(0);
  expect(readFileSync(join(dir, 'gate.md'), 'utf8')).toMatch(/^### ✅ loadgate sweep: PASS/);
  const mixed = await loadgate(['compare', base, 'examples/quickstart.yml']);
  expect(mixed.code).toBe(3);
  expect(mixed.stderr).toMatch(/^loadgate compare: examples\/quickstart\.yml: not valid JSON/);
});
