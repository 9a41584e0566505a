/**
 * The Action's nightly history through the real bundled dist/index.js: a cached file (path
 * mode), a branch committed with the token over the git data API (the fake GitHub's
 * fake-git-data.ts), a concurrent push retried, a recent change point failing the nightly, and a
 * pull request that reads the history without writing it and says since when in its comment.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyLine } from '../../src/history/line.js';
import type { HistoryLine } from '../../src/history/types.js';
import type { Result } from '../../src/result/types.js';
import { normal } from '../../src/rng.js';
import { gateOf } from '../../src/spec/gate-schema.js';
import { startFakeGitHub, type FakeGitHub } from '../fixtures/fake-github.js';
import { mountFakeGit, type FakeGit } from '../fixtures/fake-git-data.js';
import { synthesize } from '../result/synthetic.js';
import { HISTORY_DEFAULTS } from '../../src/action/history-inputs.js';
import { writeHandoff } from '../../src/action/handoff.js';
import { actionYml, loadgateComments, pullRequestEvent, runAction, tempDir } from './harness.js';

/** One night: 300 requests whose token gaps are `itlMs` with 5 % jitter (so TPOT p50 ≈ itlMs). */
function night(i: number, itlMs: number): Result {
  const r = synthesize({ n: 300, seed: 100 + i, itl: (rng) => itlMs * (1 + 0.05 * normal(rng)) });
  return { ...r, run_id: `night${i}`, created_at: `2026-11-${String(i + 1).padStart(2, '0')}T03:00:00.000Z` };
}
const lineOf = (r: Result): HistoryLine =>
  historyLine(r, gateOf(r.spec), { commit: `${String(r.run_id).padEnd(12, '0')}`, verdict: 'pass' });
const jsonl = (lines: HistoryLine[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const schedule = { eventName: 'schedule', event: { repository: { default_branch: 'main' } } };

let github: FakeGitHub;
let git: FakeGit;
beforeEach(async () => {
  github = await startFakeGitHub();
  git = mountFakeGit(github);
});
afterEach(() => github.close());

test('path mode: each nightly appends its line once, past lines kept, with the trend page beside it and change points as an output', async () => {
  const dir = tempDir();
  const past = jsonl([0, 1, 2].map((i) => lineOf(night(i, 10))));
  writeFileSync(join(dir, 'history.jsonl'), past);
  writeFileSync(join(dir, 'r3.json'), JSON.stringify(night(3, 10)));
  const inputs = { result: 'r3.json', history: 'history.jsonl', comment: 'never', 'github-token': '' };
  const first = await runAction({ workspace: dir, ...schedule, inputs });
  expect(first.code).toBe(0);
  const text = readFileSync(join(dir, 'history.jsonl'), 'utf8');
  expect(text.startsWith(past)).toBe(true);
  expect(text.trim().split('\n')).toHaveLength(4);
  expect(first.outputs['change-points']).toBe('[]');
  expect(first.outputs['history-verdict']).toBe('pass');
  expect(first.outputs['history-path']).toBe(join(dir, 'history.jsonl'));
  expect(existsSync(first.outputs['history-page-path'])).toBe(true);
  expect(first.summary).toContain('#### History: 4 nights');
  const again = await runAction({ workspace: dir, ...schedule, inputs });
  expect(again.code).toBe(0);
  expect(readFileSync(join(dir, 'history.jsonl'), 'utf8')).toBe(text); // the same run id is not appended twice
}, 60_000);

test('branch mode: a TPOT step three nights old fails the nightly, the branch gets the line and the page, and a concurrent push is retried', async () => {
  const lines = Array.from({ length: 19 }, (_, i) => lineOf(night(i, i >= 16 ? 13 : 10)));
  git.commit('loadgate-history', { 'nightly/history.jsonl': jsonl(lines) }, 'seed');
  const other = lineOf(night(40, 13));
  git.raceNext = 1; // another job's line lands between our read and our push
  git.race = (files) => files.set('nightly/history.jsonl', files.get('nightly/history.jsonl')! + JSON.stringify(other) + '\n');
  const dir = tempDir();
  writeFileSync(join(dir, 'r.json'), JSON.stringify(night(19, 13)));
  const run = await runAction({
    workspace: dir,
    apiUrl: github.url,
    ...schedule,
    inputs: { result: 'r.json', history: 'nightly/history.jsonl', 'history-branch': 'loadgate-history', comment: 'never' },
  });
  expect(run.code).toBe(1);
  expect(run.outputs.verdict).not.toBe('error');
  expect(run.outputs['history-verdict']).toBe('fail');
  expect(run.stdout).toMatch(
    /^::error::loadgate history: TPOT p(50|95) \+\d+(\.\d)? %25 since 2026-11-17, commit night16.*, among the latest 5 nights$/m,
  );
  const points = JSON.parse(run.outputs['change-points']) as { metric: string; index: number; recent: boolean }[];
  expect(points).toEqual(expect.arrayContaining([expect.objectContaining({ metric: 'tpot_p50', index: 16, recent: true })]));
  expect(git.rejected).toBe(1);
  const branch = git.fileAt('loadgate-history', 'nightly/history.jsonl')!.trim().split('\n');
  expect(branch.map((l) => (JSON.parse(l) as HistoryLine).run_id).slice(-2)).toEqual(['night40', 'night19']); // the other job's line kept
  expect(git.fileAt('loadgate-history', 'nightly/index.html')).toMatch(/^<!doctype html>/);
  expect(readFileSync(run.outputs['history-path'], 'utf8').trim().split('\n')).toEqual(branch);
  expect(run.summary).toContain('```mermaid\nxychart-beta');
  expect(
    github.requests
      .filter((r) => r.method === 'PATCH' && r.path.includes('/git/refs/'))
      .every((r) => r.authorization === 'token ghs_fake_workflow_token_000'),
  ).toBe(true);
}, 60_000);

test('a pull request reads the branch history without writing it and says since when in its comment', async () => {
  const lines = Array.from({ length: 12 }, (_, i) => lineOf(night(i, i >= 6 ? 13 : 10)));
  const head = git.commit('loadgate-history', { 'h.jsonl': jsonl(lines) });
  const dir = tempDir();
  writeFileSync(join(dir, 'r.json'), JSON.stringify(night(30, 13)));
  const run = await runAction({
    workspace: dir,
    apiUrl: github.url,
    event: pullRequestEvent(7),
    inputs: { result: 'r.json', history: 'h.jsonl', 'history-branch': 'loadgate-history' },
  });
  expect(run.outputs.verdict).not.toBe('error');
  expect(git.refs.get('loadgate-history')).toBe(head); // nothing pushed from a pull request
  const [comment] = loadgateComments(github.comments.get(7) ?? []);
  expect(comment.body).toMatch(/#### Since when\n\n- TPOT p50 \+\d+(\.\d)? % since 2026-11-07, commit night6/);
}, 60_000);

test('history inputs are checked in one line each', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'r.json'), JSON.stringify(night(1, 10)));
  const cases = [
    [
      { 'history-branch': 'x' },
      'input history-branch is set but history is not; expected history: the path of the history file in that branch',
    ],
    [{ history: 'h.jsonl', 'history-max': '-3' }, 'input history-max is "-3"; expected a whole number of nights ≥ 0 (0 keeps every one)'],
    [
      { history: 'h.jsonl', 'history-false-alarm-rate': '2' },
      'input history-false-alarm-rate is "2"; expected a fraction above 0 and at most 0.5, e.g. 0.05',
    ],
    [
      { history: '../h.jsonl', 'history-branch': 'b' },
      'input history is "../h.jsonl"; with history-branch, expected a path inside the branch such as nightly/history.jsonl',
    ],
  ] as const;
  // Each fails on its inputs before it reads or writes a history: started together, checked in order.
  const runs = await Promise.all(
    cases.map(([inputs]) =>
      runAction({ workspace: dir, ...schedule, inputs: { result: 'r.json', comment: 'never', 'github-token': '', ...inputs } }),
    ),
  );
  for (const [i, [, message]] of cases.entries()) {
    expect(runs[i].code).toBe(3);
    expect(runs[i].stdout).toContain(`::error::${message}`);
  }
}, 60_000);

test("action.yml's history defaults are the ones the code falls back to", () => {
  for (const [name, value] of Object.entries(HISTORY_DEFAULTS)) expect([name, actionYml.inputs[name]?.default]).toEqual([name, value]);
  expect(actionYml.outputs).toEqual(expect.objectContaining({ 'change-points': expect.anything(), 'history-verdict': expect.anything() }));
});

test("a fork pull request's comment, posted by the base repository's workflow_run, says since when from the base's history", async () => {
  const lines = Array.from({ length: 12 }, (_, i) => lineOf(night(i, i >= 6 ? 13 : 10)));
  git.commit('loadgate-history', { 'h.jsonl': jsonl(lines) });
  github.pulls.set(7, { headSha: 'c'.repeat(40) });
  const dir = tempDir();
  writeHandoff(join(dir, 'handoff.json'), {
    comment_id: 'bench.yml',
    pull_request: 7,
    spec_path: 'bench.yml',
    baseline_note: 'none',
    missing_baseline: null,
    current: night(31, 13),
    baseline: null,
  });
  const run = await runAction({
    workspace: dir,
    apiUrl: github.url,
    eventName: 'workflow_run',
    event: {
      workflow_run: { head_sha: 'c'.repeat(40), event: 'pull_request' },
      repository: { name: 'llm-serving', owner: { login: 'acme' } },
    },
    inputs: { 'comment-from': 'handoff.json', history: 'h.jsonl', 'history-branch': 'loadgate-history' },
  });
  expect(run.stdout).not.toMatch(/::error/);
  const [comment] = loadgateComments(github.comments.get(7) ?? []);
  expect(comment.body).toMatch(/#### Since when\n\n- TPOT p50 \+\d+(\.\d)? % since 2026-11-07, commit night6/);
}, 60_000);
