/**
 * A server failing every request must fail the gate — from the real CLI and the real
 * bundled action — also when the run's timing validity fails. The target is a loopback fixture
 * answering HTTP 500 to every completion (its /models answers, so readiness passes), and the
 * spec sets gate.validity limits no generator can meet, so every timing check fails.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedServer, type ScriptedServer } from '../fixtures/scripted-server.js';
import { ROOT, pullRequestEvent, runAction, workspaceWith } from '../action/harness.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((req) =>
    req.url.endsWith('/models')
      ? { status: 200, headers: { 'content-type': 'application/json' }, steps: [{ send: '{"data":[{"id":"m"}]}' }, { end: true }] }
      : {
          status: 500,
          headers: { 'content-type': 'application/json' },
          steps: [{ send: '{"error":{"message":"everything is broken"}}' }, { end: true }],
        },
  );
});
afterAll(() => server.close());

/** 40 requests in 2 s; the validity limits are impossible to meet (a generator's lag is never 1 ns). */
const spec = () => `name: broken-server
target: { url: "${server.baseUrl}", model: m, ready_timeout: 5s, request_timeout: 5s }
workload: { seed: 1, input_tokens: 16, output_tokens: 8, calibrate: off }
load: { arrival: constant, rate: 20, warmup: 200ms, steady: 2s, cooldown: 0s }
slo: { ttft_ms: 1000, tpot_ms: 100, e2e_ms: 5000 }
gate:
  validity: { max_schedule_lag_p99_ms: 0.000001, max_event_loop_delay_p99_ms: 0.000001, max_pool_wait_p99_ms: 0.000001 }
`;

function cli(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'loadgate.js'), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test('loadgate run: every request 500, timing validity failed: FAIL, exit 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadgate-broken-'));
  writeFileSync(join(dir, 'bench.yml'), spec());
  const run = await cli(['run', 'bench.yml', '--out', 'r.json', '--workers', '1'], dir);
  expect(run.stderr).not.toMatch(/at .*\.js:\d+/);
  expect(run.code).toBe(1);
  const result = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as {
    requests: { window: { scheduled: number; by_class: { ok: number; http_5xx: number } } };
    validity: { checks: { name: string; ok: boolean }[] };
  };
  expect(result.requests.window.by_class.ok).toBe(0);
  expect(result.requests.window.by_class.http_5xx).toBe(result.requests.window.scheduled);
  expect(result.validity.checks.find((c) => c.name === 'schedule_lag')!.ok).toBe(false);
  expect(run.stdout).toMatch(/Verdict\s+FAIL/);
  expect(run.stdout).toMatch(/every one of the \d+ requests in the window failed \(\d+ http_5xx\)/);

  // The same result judged again by compare with only the explicit timing limits (no baseline):
  // the 5xx rule is judged on error counts and fails on its own.
  const again = await cli(['compare', 'none.json', 'r.json', '--allow-missing-baseline', '--json'], dir);
  expect(again.code).toBe(1);
  const report = JSON.parse(again.stdout) as { rules: { id: string; status: string; evidence: string }[] };
  expect(report.rules.find((r) => r.id === 'slo.http_5xx_rate')).toMatchObject({ status: 'fail', evidence: 'errors' });
  expect(report.rules.find((r) => r.id === 'slo.goodput_fraction')).toMatchObject({ status: 'fail', evidence: 'errors' });
}, 60_000);

test('the action in gate mode: every request 500, timing validity failed: verdict fail, step fails', async () => {
  const run = await runAction({
    workspace: workspaceWith(spec()),
    event: pullRequestEvent(31),
    inputs: { spec: 'bench.yml', comment: 'never', 'fail-on': 'fail', 'on-missing-baseline': 'warn', 'github-token': '' },
  });
  expect(run.outputs.verdict).toBe('fail');
  expect(run.code).toBe(1);
  expect(run.summary).toMatch(/FAIL/);
  expect(run.stdout).toMatch(/^::error::loadgate verdict FAIL: every one of the \d+ requests in the window failed/m);
}, 60_000);
