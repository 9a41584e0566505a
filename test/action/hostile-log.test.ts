/**
 * The Action's log and job summary under a hostile spec, run as a runner runs the bundled
 * dist/index.js (`npm run build` first): a spec name with line breaks, `::` commands and ESC
 * puts no workflow command into the log, and a `.env` given as the spec shows none of its
 * values in the log or the summary.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeGitHub, type FakeGitHub } from '../fixtures/fake-github.js';
import { openaiStream, startScriptedServer, type ScriptedServer } from '../fixtures/scripted-server.js';
import { pullRequestEvent, runAction, tempDir, TOKEN, workspaceWith } from './harness.js';

let github: FakeGitHub;
let server: ScriptedServer;
beforeAll(async () => {
  github = await startFakeGitHub();
  // The server's own strings are hostile too: its model name and its error details reach the log.
  server = await startScriptedServer((req) =>
    req.url.endsWith('/models')
      ? { status: 200, steps: [{ send: JSON.stringify({ data: [{ id: 'm\n::error::served' }] }) }, { end: true }] }
      : openaiStream({ tokens: 2 }),
  );
});
afterAll(async () => {
  await github.close();
  await server.close();
});

/** A line the runner would execute: `::` after optional whitespace. */
const commands = (log: string) => log.split(/\r?\n/).filter((l) => /^\s*::/.test(l));

test("a spec name with newlines, ::warning:: and ESC, and a model list with one: no line of the log starts a workflow command but the step's own", async () => {
  const name = 'bench\\n::warning::pwned\\r\\n::add-mask::x\\n  ::stop-commands::tok\\u001b[31mred';
  const spec = `name: "${name}"\ntarget: {url: "${server.baseUrl}"}\nworkload: {calibrate: off, output_tokens: 2}\nload: {rate: 5, warmup: 0s, steady: 1s, cooldown: 0s}\ngate: {slo: {ttft_p95: {max_ms: 0.001}}}\n`;
  const r = await runAction({
    workspace: workspaceWith(spec),
    apiUrl: github.url,
    event: pullRequestEvent(23),
    inputs: { comment: 'never', spec: 'bench.yml' },
  });
  expect(r.outputs.verdict).toBeDefined();
  const log = r.stdout + r.stderr;
  expect(log).toContain('bench ⏎ :\u200b:warning:\u200b:pwned');
  expect(log).not.toContain('\u001b');
  // The step's own commands: annotations, and the mask of the workflow token it was given.
  for (const line of commands(log))
    expect(line).toMatch(new RegExp(`^::((error|warning|notice|debug)( [^:]*)?::|add-mask::(Bearer )?${TOKEN}$)`));
  expect(commands(log).join('\n')).not.toMatch(/pwned|add-mask::x|stop-commands|::error::served/);
  expect(log).not.toMatch(/^\s*::(add-mask::x|stop-commands)/m);
}, 60_000);

test('a .env given as the spec: the step fails with one line naming the file; no value of it in the log or the job summary', async () => {
  const ws = tempDir();
  writeFileSync(join(ws, '.env'), 'OPENAI_API_KEY=sk-live-abcdefghijklmnopqrstuvwxyz0123456789\nDB_PASSWORD=hunter2hunter2\n');
  const r = await runAction({ workspace: ws, apiUrl: github.url, event: pullRequestEvent(23), inputs: { comment: 'never', spec: '.env' } });
  expect(r.code).toBe(3);
  expect(r.outputs.verdict).toBe('error');
  expect(r.stdout).toMatch(/^::error::\.env: top level is a string of \d+ characters; expected a mapping/m);
  for (const text of [r.stdout, r.stderr, r.summary]) expect(text).not.toMatch(/sk-live|hunter2|OPENAI_API_KEY|DB_PASSWORD/);
  expect(r.summary).toContain('loadgate: ERROR');
});

test('a malformed GITHUB_EVENT_PATH: one error line naming the file, exit 3, verdict error, a job summary; no stack trace, none of its text', async () => {
  const runner = tempDir();
  const event = join(runner, 'event.json');
  writeFileSync(event, '{"pull_request": {"number": 7, "token": "sk-live-abc"');
  const r = await runAction({
    workspace: workspaceWith('target: {url: sim}\n'),
    inputs: { comment: 'never', spec: 'bench.yml' },
    env: { GITHUB_EVENT_PATH: event },
  });
  expect(r.code).toBe(3);
  expect(r.outputs.verdict).toBe('error');
  expect(r.stdout).toMatch(
    /^::error::the event payload GITHUB_EVENT_PATH .*event\.json is not valid JSON \([^)]+\); expected the runner's event file$/m,
  );
  expect(r.stdout + r.stderr).not.toMatch(/\n\s+at |sk-live/);
  expect(r.summary).toContain('loadgate: ERROR');
});
