/**
 * `loadgate init` through the real CLI (bin/loadgate.js, built dist/): against a loopback
 * server that is not the simulator it reads the model list, picks the calibration method the
 * server supports, measures the service floor and writes specs that validate and run to a
 * verdict, and workflows whose every file path exists; without a target, specs for sim.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ScriptedServer } from '../fixtures/scripted-server.js';
import { startTinyOpenAi } from '../fixtures/tiny-openai.js';
import { suggest } from '../../src/cli/init-specs.js';
import { readSpec } from '../../src/spec/load.js';
import { loadWorkloadInputs } from '../../src/workload/inputs.js';

const CLI = join(process.cwd(), 'bin', 'loadgate.js');

function cli(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const temp = () => mkdtempSync(join(tmpdir(), 'loadgate-init-'));

/** Every value under a `with:` that the action reads as a file in the repository. */
export function withPaths(workflow: string): string[] {
  const wf = parse(workflow) as { jobs: Record<string, { steps: { with?: Record<string, unknown> }[] }> };
  return Object.values(wf.jobs)
    .flatMap((j) => j.steps)
    .flatMap((s) => ['spec', 'baseline', 'calibration', 'result', 'comment-from'].map((k) => s.with?.[k]))
    .filter((v): v is string => typeof v === 'string' && !v.includes('${{'));
}

let server: ScriptedServer;
beforeAll(async () => {
  server = await startTinyOpenAi({ ttftMs: 20, itlMs: 2 });
});
afterAll(() => server.close());

describe('against a real server (not the simulator)', () => {
  const dir = temp();
  let init: { code: number; stdout: string; stderr: string };
  beforeAll(async () => {
    init = await cli(['init', '--target-url', server.baseUrl, '--workflow', 'all'], dir);
  }, 60_000);

  test('prints what it wrote and the next command', () => {
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain('using "acme-chat-7b", the one model');
    expect(init.stdout).toContain('wrote bench/chat.yml');
    expect(init.stdout).toContain('wrote .github/workflows/loadgate-pr.yml');
    expect(init.stdout).toContain('next: loadgate run bench/chat.yml');
  });

  test('the spec names the served model, the tokenize counter, and SLOs derived from the measured floor', () => {
    const text = readFileSync(join(dir, 'bench/chat.yml'), 'utf8');
    const spec = parse(text) as {
      target: { model: string; url: string };
      workload: { calibrate: string };
      slo: Record<string, number>;
      load: { rate: number };
    };
    expect(spec.target).toMatchObject({ model: 'acme-chat-7b', url: server.baseUrl });
    expect(spec.workload.calibrate).toBe('tokenize');
    const floor = /TTFT ([\d.]+) ms, TPOT ([\d.]+) ms, E2E ([\d.]+) ms/.exec(text)!;
    const [ttftMs, tpotMs, e2eMs] = floor.slice(1).map(Number);
    // The floor is what the server's own script takes: the first chunk 20 ms after the request, then 2 ms per token.
    expect(ttftMs).toBeGreaterThanOrEqual(20);
    expect(tpotMs).toBeGreaterThanOrEqual(1.9);
    expect(e2eMs).toBeGreaterThanOrEqual(20 + 63 * 2);
    const s = suggest({ requests: 4, ttftMs, tpotMs, e2eMs });
    expect({ rate: spec.load.rate, ...spec.slo }).toEqual({ rate: s.rate, ttft_ms: s.ttftMs, tpot_ms: s.tpotMs, e2e_ms: s.e2eMs });
    expect(text).toMatch(/# yaml-language-server: \$schema=\S+spec\.schema\.json/);
    expect(text).toContain("Little's law");
  });

  test('every spec validates, and the gate spec runs to a verdict', async () => {
    // validate's own check, in this process (the packed-install test runs the CLI's validate on them too).
    for (const f of ['chat', 'soak', 'release', 'capacity'])
      expect(() => loadWorkloadInputs(readSpec(join(dir, `bench/${f}.yml`)))).not.toThrow();
    const run = await cli(['run', 'bench/chat.yml', '--duration', '3s', '--warmup', '1s', '--out', 'r.json'], dir);
    expect(run.stderr).not.toMatch(/error/i);
    expect([0, 1, 2]).toContain(run.code);
    expect(run.stdout).toMatch(/verdict|PASS|FAIL|INCONCLUSIVE/i);
    const result = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as {
      requests: { window: { scheduled: number; by_class: { ok: number } } };
    };
    expect(result.requests.window.by_class.ok).toBe(result.requests.window.scheduled);
    expect(result.requests.window.scheduled).toBeGreaterThan(10);
  }, 60_000);

  test('every file a workflow names under with: exists', () => {
    for (const wf of ['pr', 'nightly', 'release']) {
      const paths = withPaths(readFileSync(join(dir, `.github/workflows/loadgate-${wf}.yml`), 'utf8'));
      expect(paths.length).toBeGreaterThan(0);
      for (const p of paths) expect(`${wf}: ${p} ${existsSync(join(dir, p)) ? 'exists' : 'missing'}`).toBe(`${wf}: ${p} exists`);
    }
  });

  test('never overwrites without --force', async () => {
    writeFileSync(join(dir, 'bench/chat.yml'), 'mine\n');
    const again = await cli(['init', '--target-url', server.baseUrl], dir);
    expect(again.code).toBe(3);
    expect(again.stderr).toBe('loadgate init: bench/chat.yml already exists; pass --force to overwrite\n');
    expect(readFileSync(join(dir, 'bench/chat.yml'), 'utf8')).toBe('mine\n');
    const forced = await cli(['init', '--target-url', server.baseUrl, '--force'], dir);
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'bench/chat.yml'), 'utf8')).toContain('name: chat');
  });
});

test('a model the server does not serve fails with a did-you-mean, writing nothing', async () => {
  const dir = temp();
  const r = await cli(['init', '--target-url', server.baseUrl, '--model', 'acme-chat-8b'], dir);
  expect(r.code).toBe(3);
  expect(r.stderr).toBe(
    `loadgate init: --model "acme-chat-8b" is not served by ${server.baseUrl} (it lists "acme-chat-7b"); did you mean "acme-chat-7b"?\n`,
  );
  expect(existsSync(join(dir, 'bench'))).toBe(false);
});

test('a server without a tokenize endpoint gets calibrate: probe', async () => {
  const plain = await startTinyOpenAi({ tokenize: false });
  try {
    const dir = temp();
    expect((await cli(['init', '--target-url', plain.baseUrl, '--api-key-env', 'ACME_KEY'], dir, { ACME_KEY: 'sk-secret-1' })).code).toBe(
      0,
    );
    const text = readFileSync(join(dir, 'bench/chat.yml'), 'utf8');
    expect((parse(text) as { workload: { calibrate: string } }).workload.calibrate).toBe('probe');
    expect(text).toContain('api_key_env: ACME_KEY');
    expect(text).not.toContain('sk-secret-1');
  } finally {
    await plain.close();
  }
}, 30_000);

test('without a target: specs for the simulator, and a bad flag is one line', async () => {
  const dir = temp();
  const r = await cli(['init', '--workflow', 'pr'], dir);
  expect(r.code).toBe(0);
  expect((parse(readFileSync(join(dir, 'bench/chat.yml'), 'utf8')) as { target: { url: string } }).target.url).toBe('sim');
  expect(existsSync(join(dir, '.github/workflows/loadgate-nightly.yml'))).toBe(false);
  const bad = await cli(['init', '--workflow', 'weekly'], temp());
  expect(bad).toMatchObject({
    code: 3,
    stderr: 'loadgate init: --workflow weekly is not a workflow; expected pr, nightly, release or all\n',
  });
});
