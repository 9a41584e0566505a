/**
 * mode: sweep of the bundled action: a sweep document gated against a baseline sweep (verdict,
 * outputs, job summary, exit status), a missing baseline per on-missing-baseline, inputs that do
 * not apply, and one live sweep on the simulator.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readSweep } from '../../src/capacity/load.js';
import { curvePoints, sweepDocument, sweepSpec } from '../capacity/fixtures.js';
import { startFakeGitHub } from '../fixtures/fake-github.js';
import { pullRequestEvent, runAction, tempDir } from './harness.js';

const RATES = [4, 8, 16, 24, 28, 32, 36, 48, 60];
const spec = sweepSpec();

function workspace(docs: Record<string, number>): string {
  const dir = tempDir();
  for (const [name, scale] of Object.entries(docs))
    writeFileSync(join(dir, name), JSON.stringify(sweepDocument(curvePoints(RATES, scale, name.length), spec)));
  return dir;
}
const judge = (ws: string, inputs: Record<string, string>) =>
  runAction({ workspace: ws, eventName: 'push', inputs: { mode: 'sweep', comment: 'never', ...inputs } });

test('a capacity drop against the baseline sweep fails the step, after the summary and the outputs', async () => {
  const r = await judge(workspace({ 'base.json': 1, 'rc.json': 0.7 }), { result: 'rc.json', baseline: 'base.json' });
  expect(r.code).toBe(1);
  expect(r.outputs.verdict).toBe('fail');
  expect(r.outputs['capacity-at-slo-rate-per-s']).toBe('16');
  expect(r.outputs['saturation-requests-per-s']).toBe('28');
  expect(r.summary).toMatch(/^### ❌ loadgate sweep: FAIL/);
  expect(r.summary).toContain('capacity at SLO');
  expect(readFileSync(r.outputs['html-report-path'], 'utf8')).toContain('<svg');
  // Workflow commands encode % and : in their properties and messages.
  expect(r.stdout).toMatch(
    /::error title=loadgate%3A capacity at SLO regression::capacity at SLO may fall ≤ 10 %25: fell from 32 to 16 req\/s/,
  );
});

test('the same capacity passes; a missing baseline with on-missing-baseline fail fails', async () => {
  const ws = workspace({ 'base.json': 1, 'rc.json': 1 });
  const pass = await judge(ws, { result: 'rc.json', baseline: 'base.json' });
  expect(pass.code).toBe(0);
  expect(pass.outputs.verdict).toBe('pass');
  const missing = await judge(ws, { result: 'rc.json', baseline: 'nope.json', 'on-missing-baseline': 'fail' });
  expect(missing.code).toBe(1);
  expect(missing.outputs.verdict).toBe('fail');
  expect(missing.summary).toContain('**No baseline sweep** (baseline sweep nope.json does not exist)');
});

test('on a pull request the sweep report is one sticky comment of its own, apart from the gate comment for the same file', async () => {
  const github = await startFakeGitHub();
  try {
    // The gate's comment for rc.json is already there, by the same bot: the sweep must not take it over.
    const gateBody = '<!-- loadgate:rc.json verdict=pass -->\n\nthe gate comment';
    github.comments.set(9, [
      {
        id: 1,
        body: gateBody,
        user: { login: 'github-actions[bot]', type: 'Bot' },
        html_url: 'https://github.com/acme/llm-serving/pull/9#issuecomment-1',
      },
    ]);
    const ws = workspace({ 'base.json': 1, 'rc.json': 0.7 });
    const run = (inputs: Record<string, string>) =>
      runAction({
        workspace: ws,
        apiUrl: github.url,
        event: pullRequestEvent(9),
        eventName: 'pull_request',
        inputs: { mode: 'sweep', result: 'rc.json', ...inputs },
      });
    const first = await run({ baseline: 'base.json' });
    expect(first.code).toBe(1);
    const sweepComments = () => github.comments.get(9)!.filter((c) => c.body.startsWith('<!-- loadgate:rc.json:sweep '));
    expect(sweepComments()).toHaveLength(1);
    expect(sweepComments()[0].body).toMatch(/^<!-- loadgate:rc\.json:sweep verdict=fail -->\n\n### ❌ loadgate sweep: FAIL/);
    expect(sweepComments()[0].body).toContain('capacity at SLO');
    expect(first.outputs['comment-url']).toBe(sweepComments()[0].html_url);
    // A second run (the capacity restored) updates that comment in place; the gate's is untouched.
    await run({ baseline: 'rc.json' });
    expect(sweepComments()).toHaveLength(1);
    expect(sweepComments()[0].body).toMatch(/^<!-- loadgate:rc\.json:sweep verdict=pass -->/);
    expect(github.comments.get(9)!.find((c) => c.id === 1)!.body).toBe(gateBody);
  } finally {
    await github.close();
  }
});

test('inputs that do not apply to mode sweep are refused in one line', async () => {
  const r = await judge(workspace({ 'rc.json': 1 }), { result: 'rc.json', 'baseline-artifact': 'loadgate-baseline' });
  expect(r.code).toBe(3);
  expect(r.outputs.verdict).toBe('error');
  expect(r.stdout).toContain(
    '::error::input baseline-artifact does not apply to mode sweep; expected baseline: the path of a baseline sweep document (fetch it with actions/download-artifact first)',
  );
});

test('a live sweep on the simulator writes its document at result-path', async () => {
  const ws = tempDir();
  writeFileSync(
    join(ws, 'bench.yml'),
    `target: { url: sim, sim: { mode: paced, ttft_ms: 15, itl_ms: 2 } }
workload: { input_tokens: 24, output_tokens: 12, calibrate: off }
load: { arrival: constant, warmup: 300ms, steady: 1s, cooldown: 0s }
sweep: { rates: [5, 10], bisect: { max_points: 0, knee_points: 0 } }
`,
  );
  const r = await judge(ws, { spec: 'bench.yml', 'result-path': 'sweep.json' });
  expect(r.outputs.verdict).toBe('inconclusive'); // no baseline: nothing judged
  expect(r.code).toBe(0);
  const doc = readSweep(join(ws, 'sweep.json'));
  expect(doc.points.map((p) => p.rate_per_s)).toEqual([5, 10]);
  expect(Number(r.outputs['service-floor-ms'])).toBeGreaterThan(10);
}, 60_000);
