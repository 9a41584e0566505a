import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRng } from '../../src/rng.js';
import type { Result } from '../../src/result/types.js';
import { CLI } from '../fixtures/cli.js';
import { startSimProcess, type SimProcess } from '../fixtures/sim-process.js';

/**
 * A generator whose thread is held while its loop waits idle: stopped with SIGSTOP for 15 ms at
 * a time, as a hypervisor holds a virtual CPU. The thread is on no run queue then, so its
 * run-queue wait does not show the hold, and libuv books it all as idle: the bytes that came
 * during it are read at its end, as if they had just come. The loop's timers (the dispatcher's,
 * the loop probe's) show it: an idle wait cannot outlast a timer due inside it, so a read after
 * such a wait keeps a bound reaching back before the hold (src/client/client.ts). Judged
 * against the simulator's own write times, in a process the stops do not touch.
 */
let sim: SimProcess;
let dir: string;
/** The generator's process, and the timer of the next stop or continue: both ended in afterAll whatever happened. */
let child: ChildProcess | undefined;
let holding: NodeJS.Timeout | undefined;
beforeAll(async () => {
  sim = await startSimProcess({ model: 'test-model', mode: 'paced', ttft_ms: 20, itl_ms: 5 });
  dir = mkdtempSync(join(tmpdir(), 'loadgate-held-'));
});
afterAll(async () => {
  clearTimeout(holding);
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  await sim?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('reads after a hold of the whole thread (SIGSTOP while idle) carry bounds that reach back over the hold', async () => {
  const spec = join(dir, 'held.yml');
  writeFileSync(
    spec,
    `name: held
target: { url: "${sim.origin}/v1", model: test-model, request_timeout: 10s, ready_timeout: 5s }
workload: { seed: 3, input_tokens: 16, output_tokens: 16, calibrate: off }
load: { rate: 40, warmup: 1s, steady: 4s, cooldown: 0s }
`,
  );
  const records = join(dir, 'records.jsonl');
  const generator = spawn(
    process.execPath,
    [CLI, 'run', spec, '--workers', '1', '--json', '--records', records, '--out', join(dir, 'result.json')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child = generator;
  let stdout = '';
  generator.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => generator.once('close', resolve));
  // Holds of 15 ms, 80–200 ms apart (seeded), from 1.5 s in (after the warmup's start-up) until the run ends.
  const rng = createRng(21);
  let ended = false;
  let holds = 0;
  const hold = () => {
    if (ended) return;
    generator.kill('SIGSTOP');
    holds++;
    holding = setTimeout(() => {
      generator.kill('SIGCONT');
      holding = setTimeout(hold, 80 + 120 * rng.next());
    }, 15);
  };
  holding = setTimeout(hold, 1500);
  const code = await exited;
  ended = true;
  clearTimeout(holding);
  const result = JSON.parse(stdout) as Result & { verdict: { verdict: string; reasons: string[] } };
  // Exit 2: the holds put the generator's timing over its default limits, and the verdict says so.
  expect([code, result.verdict.verdict]).toEqual([2, 'inconclusive']);
  expect(result.verdict.reasons.some((r) => /^generator timing over its default limits/.test(r))).toBe(true);
  expect(holds).toBeGreaterThan(10);

  const floor = result.generator.timestamp_error_ms?.delivery_ms ?? 0;
  const truth = await sim.truth();
  const lines = readFileSync(records, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { request_id: string; in_window: boolean; outcome: string; t_first: number; late_first_ms: number });
  /** First tokens read more than 3 ms after the simulator wrote them: the holds' doing, here. */
  const heldUp: { late: number; bound: number }[] = [];
  for (const r of lines) {
    const t = truth.get(r.request_id);
    if (!r.in_window || r.outcome !== 'ok' || !t?.first_token) continue;
    const late = r.t_first - t.first_token;
    if (late > 3) heldUp.push({ late, bound: r.late_first_ms + floor });
  }
  // Some first tokens came during a hold (a hold covers 15 ms of every ~155, and 40 requests a second start).
  expect(heldUp.length).toBeGreaterThan(5);
  // Each one's own bound reaches back over its wait, to within 0.5 ms (reads behind a hold have
  // been seen short of it by up to 0.23 ms, the cause not traced; without the timers' evidence
  // they fall short by most of the hold). A hold that began after the last timer due before its
  // end is not seen (none here: the loop probe is due every 10 ms, inside each hold); one such
  // read is allowed for a machine that held the thread on its own at that moment.
  const short = heldUp.filter((h) => h.bound < h.late - 0.5);
  expect([short.length <= 1, short, heldUp.length]).toEqual([true, short, heldUp.length]);
}, 30_000);
