import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readResult } from '../../src/result/load.js';
import { CLI, loadgate } from '../fixtures/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'loadgate-cli-'));

describe('loadgate CLI', () => {
  test('--help on each command describes it and exits 0', async () => {
    // Independent processes that time nothing: started together, checked in order.
    const runs = await Promise.all(
      [['--help'], ['run', '--help'], ['validate', '--help'], ['sim', '--help']].map((args) => loadgate(args)),
    );
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/[Uu]sage: loadgate/);
    }
  });

  test('validate accepts the quick-start spec and rejects a bad one with one line and exit 3', async () => {
    const spec = join(tmp(), 'bad.yml');
    writeFileSync(spec, 'target: {url: sim}\nload: {ratee: 5}\n');
    const [ok, bad] = await Promise.all([loadgate(['validate', 'examples/quickstart.yml']), loadgate(['validate', spec])]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^examples\/quickstart\.yml: valid \(spec hash [0-9a-f]{12}\)\n$/);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toBe(`loadgate validate: ${spec}: load.ratee is not a known key; did you mean "rate"?\n`);
  });

  test('bad flags and unknown commands are one line with exit 3, never a stack trace', async () => {
    const cases = [
      [['run', 'examples/quickstart.yml', '--rate', 'fast'], /^loadgate run: --rate is "fast"; expected a number > 0\n$/],
      [['run', 'examples/quickstart.yml', '--format', 'xml'], /^loadgate run: --format "xml" is not known; expected loadgate or vllm\n$/],
      [['run', 'examples/quickstart.yml', '--bogus'], /^loadgate run: Unknown option '--bogus'.*\n$/],
      [['frobnicate'], /^loadgate: unknown command "frobnicate"; expected .*\n$/],
      [['run', 'missing.yml'], /^loadgate run: missing\.yml: file not found; expected a readable YAML spec file\n$/],
    ] as const;
    const runs = await Promise.all(cases.map(([args]) => loadgate([...args])));
    for (const [i, [, expected]] of cases.entries()) {
      const r = runs[i];
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(expected);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  test('an unreachable target exits 3 with a one-line reason', async () => {
    const spec = join(tmp(), 'down.yml');
    writeFileSync(spec, 'target: {url: "http://127.0.0.1:9/v1", model: m, ready_timeout: 300ms}\n');
    const r = await loadgate(['run', spec, '--out', join(tmp(), 'r.json')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^loadgate run: target http:\/\/127\.0\.0\.1:9\/v1\/models was not ready within 0\.3s \(last: ECONNREFUSED\)/m,
    );
  });

  test('Ctrl-C stops the run, still writes the result with every arrival accounted for, and exits inconclusive', async () => {
    const dir = tmp();
    const spec = join(dir, 'long.yml');
    writeFileSync(
      spec,
      'target: {url: sim, sim: {mode: paced, ttft_ms: 20, itl_ms: 20}}\nworkload: {output_tokens: 100, calibrate: off}\nload: {rate: 20, warmup: 1s, steady: 60s}\n',
    );
    const out = join(dir, 'r.json');
    const child = spawn(process.execPath, [CLI, 'run', spec, '--out', out, '--workers', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise((r) => setTimeout(r, 4000));
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(2);
    expect(stderr).toContain('interrupted: stopping dispatch');
    const result = readResult(out);
    expect(result.load.interrupted).toBe(true);
    const sum = Object.values(result.requests.by_class).reduce((a, b) => a + b, 0);
    expect(sum).toBe(result.requests.scheduled);
    // In flight when stopped: cancelled, their own class, not timeouts (the run was 4 s, the timeout 10 s).
    expect(result.requests.by_class.cancelled).toBeGreaterThan(0);
    expect(result.requests.by_class.timeout).toBe(0);
    expect(result.requests.scheduled + result.requests.not_reached).toBeGreaterThan(1000);
  });

  test('run --baseline: a missing baseline is recorded by the first run, and the second run is judged against it', async () => {
    const dir = tmp();
    const spec = join(dir, 'b.yml');
    writeFileSync(
      spec,
      'target: {url: sim, sim: {mode: paced, ttft_ms: 10, itl_ms: 2}}\nworkload: {output_tokens: 8, calibrate: off}\nload: {rate: 60, warmup: 1s, steady: 4s, cooldown: 0s}\n',
    );
    const baseline = join(dir, 'baseline.json');
    const first = await loadgate([
      'run',
      spec,
      '--out',
      join(dir, 'r1.json'),
      '--workers',
      '1',
      '--baseline',
      baseline,
      '--allow-missing-baseline',
    ]);
    expect(first.stderr).toContain(`no baseline at ${baseline}: judged on SLO rules alone, and recorded this run there as the baseline`);
    expect(readResult(baseline).requests.window.scheduled).toBeGreaterThan(200);
    const second = await loadgate(['run', spec, '--out', join(dir, 'r2.json'), '--workers', '1', '--baseline', baseline, '--json']);
    expect([0, 1, 2]).toContain(second.code);
    const report = JSON.parse(second.stdout).verdict;
    expect(report.has_baseline).toBe(true);
    expect(report.rules.find((r: { id: string }) => r.id.startsWith('latency.tpot_p50')).baseline).toBeGreaterThan(1.5);
    const missing = await loadgate(['run', spec, '--baseline', join(dir, 'nope.json')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/nope\.json/);
  });
});
