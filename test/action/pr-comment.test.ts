/**
 * The bundled action on pull_request events against the simulator and a fake GitHub API:
 * outputs, job summary, one sticky comment created then updated, secrets kept out of
 * everything, a token that may not comment, and the fork pull request handoff.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeGitHub, type FakeGitHub } from '../fixtures/fake-github.js';
import { loadgateComments, OWNER_REPO, pullRequestEvent, runAction, simSpec, TOKEN, workspaceWith, type ActionRun } from './harness.js';

const KEY = 'sk-loadgate-CANARY-7f3a9c21e5';
const PR = 7;

let github: FakeGitHub;
let workspace: string;
let first: ActionRun;
/** The first run's handoff file, copied before later runs in the same workspace overwrite it. */
let handoff: string;

beforeAll(async () => {
  github = await startFakeGitHub();
  // 150 earlier comments by people and other bots: ours lands on the second page of 100.
  github.comments.set(
    PR,
    Array.from({ length: 150 }, (_, i) => ({
      id: i + 1,
      body: i === 3 ? 'quoting: <!-- loadgate:bench.yml verdict=pass --> by a person' : `comment ${i}`,
      user: i % 2 ? { login: `dev${i}`, type: 'User' as const } : { login: 'other[bot]', type: 'Bot' as const },
      html_url: `https://github.com/${OWNER_REPO}/pull/${PR}#issuecomment-${i + 1}`,
    })),
  );
  workspace = workspaceWith(simSpec({ extraTarget: '  api_key_env: LOADGATE_TEST_KEY\n' }));
  first = await runAction({ workspace, apiUrl: github.url, event: pullRequestEvent(PR), inputs: { spec: 'bench.yml', 'api-key': KEY } });
  handoff = join(workspace, 'handoff-pr7.json');
  copyFileSync(first.outputs['comment-file'], handoff);
});

afterAll(() => github.close());

const posts = () => github.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/issues/${PR}/comments`));
const patches = () => github.requests.filter((r) => r.method === 'PATCH');

test('the outputs hold the verdict and the figures', () => {
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  const o = first.outputs;
  expect(o.verdict).toBe('inconclusive'); // 40 requests: too few to judge a p95
  for (const name of ['ttft-p50-ms', 'ttft-p95-ms', 'tpot-p50-ms', 'tpot-p95-ms', 'output-tokens-per-s'])
    expect(Number(o[name])).toBeGreaterThan(0);
  expect(Number(o['ttft-p50-ms'])).toBeGreaterThanOrEqual(15); // the sim's fixed TTFT
  expect(o['http-5xx-rate']).toBe('0');
  expect(Number(o['goodput-fraction'])).toBe(1);
  expect(o['result-path']).toBe(join(workspace, 'loadgate-result.json'));
  expect(JSON.parse(readFileSync(o['result-path'], 'utf8')).spec.name).toBe('action-test');
  expect(readFileSync(o['report-path'], 'utf8')).toContain('loadgate: INCONCLUSIVE');
  expect(readFileSync(o['html-report-path'], 'utf8')).toMatch(/^<!doctype html>/i);
  expect(o['comment-url']).toMatch(new RegExp(`^https://github.com/${OWNER_REPO}/pull/${PR}#issuecomment-\\d+$`));
});

test('the job summary has the verdict, the table, the baseline used and the run facts', () => {
  const s = first.summary;
  expect(s).toContain('### ❔ loadgate: INCONCLUSIVE — action-test');
  expect(s).toContain('| Metric | Baseline | Current | Change | Rule | Status |');
  expect(s).toContain('**Baseline used**: none configured');
  expect(s).toContain('```mermaid');
  expect(s).toContain('#### Workload and load delivered');
  expect(s).toMatch(/\| Tool \| loadgate \d+\.\d+\.\d+ \|/);
  expect(first.stdout).toMatch(/^::warning title=loadgate%3A inconclusive::/m);
});

test('a first run creates one comment, found again across pages and updated by the second run', async () => {
  expect(posts()).toHaveLength(1);
  const created = loadgateComments(github.comments.get(PR)!.filter((c) => c.user.login === 'github-actions[bot]'));
  expect(created).toHaveLength(1);
  expect(created[0].body.startsWith('<!-- loadgate:bench.yml verdict=inconclusive -->')).toBe(true);
  expect(github.requests.filter((r) => r.path.includes(`/issues/${PR}/comments?`)).every((r) => r.authorization === `token ${TOKEN}`)).toBe(
    true,
  );

  const second = await runAction({
    workspace,
    apiUrl: github.url,
    event: pullRequestEvent(PR),
    inputs: { spec: 'bench.yml', 'api-key': KEY },
  });
  expect(second.code).toBe(0);
  expect(posts()).toHaveLength(1);
  expect(patches()).toHaveLength(1);
  expect(patches()[0].path).toBe(`/repos/${OWNER_REPO}/issues/comments/${created[0].id}`);
  expect(github.requests.some((r) => r.path.includes('page=2'))).toBe(true);
  expect(github.comments.get(PR)!.filter((c) => c.user.login === 'github-actions[bot]')).toHaveLength(1);
  expect(github.comments.get(PR)![3].body).toContain('by a person'); // the quoting comment is left alone
  expect(second.outputs['comment-url']).toBe(first.outputs['comment-url']);
});

test('the API key appears in no output, summary, file, comment or log line', () => {
  const files = [...['result-path', 'report-path', 'html-report-path'].map((o) => first.outputs[o]), handoff].map((f) =>
    readFileSync(f, 'utf8'),
  );
  const sent = github.requests.map((r) => `${r.path} ${r.authorization ?? ''} ${r.body}`);
  const logs = [first.stdout, first.stderr].map((s) =>
    s
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n'),
  );
  for (const text of [JSON.stringify(first.outputs), first.summary, ...files, ...sent, ...logs]) expect(text).not.toContain(KEY);
  expect(first.stdout).toContain(`::add-mask::${KEY}`);
  expect(first.stdout).toContain(`::add-mask::Bearer ${KEY}`);
});

test('a token that may not comment costs a warning, not the step', async () => {
  github.denyComments = true;
  try {
    const run = await runAction({
      workspace,
      apiUrl: github.url,
      event: pullRequestEvent(8),
      inputs: { spec: 'bench.yml', 'api-key': KEY },
    });
    expect(run.code).toBe(0);
    expect(run.outputs.verdict).toBe('inconclusive');
    expect(run.outputs['comment-url']).toBe('');
    const warnings = run.stdout.split('\n').filter((l) => l.startsWith('::warning title=loadgate%3A no pull request comment::'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('HTTP 403');
    expect(warnings[0]).toContain('fork-pr-comment.yml');
    expect(run.summary).toContain('loadgate: INCONCLUSIVE');
  } finally {
    github.denyComments = false;
  }
});

describe('fork pull requests: the workflow_run half posts the handoff', () => {
  const workflowRun = (headSha: string) => ({
    workflow_run: { head_sha: headSha, event: 'pull_request', pull_requests: [] },
    repository: { name: 'llm-serving', owner: { login: 'acme' } },
  });

  test('the handoff updates the same sticky comment, after checking the pull request', async () => {
    github.pulls.set(PR, { headSha: 'c'.repeat(40) });
    const before = patches().length;
    const run = await runAction({
      apiUrl: github.url,
      eventName: 'workflow_run',
      event: workflowRun('c'.repeat(40)),
      inputs: { 'comment-from': handoff },
    });
    expect(run.stdout).not.toMatch(/::error/);
    expect(run.code).toBe(0);
    expect(run.outputs.verdict).toBe('inconclusive');
    expect(patches()).toHaveLength(before + 1);
    expect(posts()).toHaveLength(1);
    const body = github.comments.get(PR)!.find((c) => c.user.login === 'github-actions[bot]')!.body;
    expect(body).toContain('by a workflow_run of the base repository');
    expect(body).toContain('| Metric | Baseline | Current | Change | Rule | Status |');
  });

  test('a handoff naming another pull request is refused', async () => {
    github.pulls.set(PR, { headSha: 'e'.repeat(40) });
    const before = github.requests.length;
    const run = await runAction({
      apiUrl: github.url,
      eventName: 'workflow_run',
      event: workflowRun('c'.repeat(40)),
      inputs: { 'comment-from': handoff },
    });
    expect(run.code).toBe(3);
    expect(run.outputs.verdict).toBe('error');
    expect(run.stdout).toContain(
      '::error::comment-from: the handoff names pull request #7, whose head is eeeeeee, but the triggering run built ccccccc; refusing to comment',
    );
    expect(github.requests.slice(before).filter((r) => r.method !== 'GET')).toHaveLength(0);
  });
});
