/** In the Action, result-path and report-path are checked before the benchmark sends anything. */
import { startFakeGitHub, type FakeGitHub } from '../fixtures/fake-github.js';
import { openaiStream, startScriptedServer, type ScriptedServer } from '../fixtures/scripted-server.js';
import { pullRequestEvent, runAction, workspaceWith } from './harness.js';

let github: FakeGitHub;
let server: ScriptedServer;
beforeAll(async () => {
  github = await startFakeGitHub();
  server = await startScriptedServer((req) =>
    req.url.endsWith('/models') ? { status: 200, steps: [{ send: '{"data":[{"id":"m"}]}' }, { end: true }] } : openaiStream({ tokens: 2 }),
  );
});
afterAll(async () => {
  await github.close();
  await server.close();
});

test.each([
  [
    'result-path',
    '/proc/nope/r.json',
    /^::error::input result-path \/proc\/nope\/r\.json: the folder \/proc\/nope cannot be created \(no such place\); expected a writable place$/,
  ],
  ['report-path', '.', /^::error::input report-path \.: is a directory; expected a file path$/],
])('an unwritable %s fails the step at once with one line and exit 3, before any request', async (input, path, line) => {
  const spec = `name: paths\ntarget: {url: "${server.baseUrl}", model: m}\nworkload: {calibrate: off, output_tokens: 2}\nload: {rate: 5, warmup: 0s, steady: 1s, cooldown: 0s}\n`;
  const r = await runAction({
    workspace: workspaceWith(spec),
    apiUrl: github.url,
    event: pullRequestEvent(16),
    inputs: { comment: 'never', spec: 'bench.yml', [input]: path },
  });
  expect(r.code).toBe(3);
  expect(r.stdout.split('\n').filter((l) => l.startsWith('::error'))).toEqual([expect.stringMatching(line)]);
  expect(r.outputs.verdict).toBe('error');
  expect(server.requests).toBe(0);
});
