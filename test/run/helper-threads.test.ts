import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { node24 } from '../action/harness.js';
import { CLI } from '../fixtures/cli.js';

/**
 * The CLI and the Action lower every thread the process has at their start except the main
 * thread to nice 19, so V8's compiler threads give the generator's core back at once; the
 * generator's own threads, started later, keep the main thread's priority. Read from /proc, in
 * a bundled harness (with and without the call, and on Node 24 where the suite has one) and in a
 * run of the real CLI with two generator threads.
 */
const linux = process.platform === 'linux';
const dir = mkdtempSync(join(tmpdir(), 'loadgate-helper-threads-'));
const harness = join(dir, 'threads.mjs');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A thread's nice value and CPU ticks from /proc/<pid>/task/<tid>/stat (fields after the name). */
function taskStat(pid: number, tid: string): { nice: number; ticks: number } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { nice: Number(fields[16]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null; // ended in between
  }
}

beforeAll(async () => {
  // Lowers (or not) the threads, then starts a worker that reports its own thread id and nice
  // value; the main thread then reports everyone's.
  await build({
    stdin: {
      contents: `import { lowerHelperThreads } from ${JSON.stringify(resolve('src/run/helper-threads.ts'))};
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
const niceOf = (path) => Number(readFileSync(path, 'utf8').split(') ')[1].split(' ')[16]);
if (isMainThread) {
  const before = readdirSync('/proc/self/task').length;
  const lowered = process.argv[2] === 'on' ? lowerHelperThreads() : 0;
  const worker = new Worker(process.argv[1]);
  const own = await new Promise((r) => worker.once('message', r));
  const others = readdirSync('/proc/self/task')
    .filter((t) => Number(t) !== process.pid && t !== own.tid)
    .map((t) => niceOf('/proc/self/task/' + t + '/stat'));
  worker.postMessage('done');
  console.log(JSON.stringify({ before, lowered, main: niceOf('/proc/self/stat'), worker: own.nice, others }));
} else {
  const tid = readlinkSync('/proc/thread-self').split('/').pop();
  parentPort.postMessage({ tid, nice: niceOf('/proc/thread-self/stat') });
  parentPort.once('message', () => process.exit(0));
}
`,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: harness,
    logLevel: 'warning',
  });
});

interface Seen {
  before: number;
  lowered: number;
  main: number;
  worker: number;
  others: number[];
}

function threads(node: string, mode: 'on' | 'off'): Seen {
  const r = spawnSync(node, [harness, mode], { encoding: 'utf8', timeout: 30_000 });
  expect([r.status, r.stderr]).toEqual([0, '']);
  return JSON.parse(r.stdout) as Seen;
}

function expectLowered(node: string): void {
  const off = threads(node, 'off');
  // Without the call every thread runs at the priority it was started with: the measurement sees a difference.
  expect(new Set([off.main, off.worker, ...off.others])).toEqual(new Set([0]));
  const on = threads(node, 'on');
  // V8's platform workers (4) and Node's delayed-task thread at least, every one there at the call.
  expect(on.lowered).toBeGreaterThanOrEqual(5);
  expect(on.lowered).toBe(on.before - 1);
  expect([on.main, on.worker]).toEqual([0, 0]);
  expect(on.others.length).toBeGreaterThanOrEqual(on.lowered);
  // Threads a lowered thread starts would run at 19 too; none may run at 0 but the two.
  expect(new Set(on.others)).toEqual(new Set([19]));
}

(linux ? test : test.skip)(
  'every thread but the main one is lowered to nice 19, and a worker started after keeps the main priority',
  () => {
    expectLowered(process.execPath);
  },
);

const node = node24();
(linux && node ? test : test.skip)(`the same on Node 24, which the Action runs on (${node ?? 'not found: set LOADGATE_NODE24'})`, () => {
  expectLowered(node!);
});

(linux ? test : test.skip)(
  'in a run of the CLI with two generator threads, those two and the main thread run at nice 0, the rest at 19',
  async () => {
    const spec = join(dir, 'spec.yml');
    writeFileSync(
      spec,
      'name: threads\ntarget: { url: sim, api: chat }\nworkload: { seed: 1, input_tokens: 16, output_tokens: 8, calibrate: off }\nload: { rate: 200, warmup: 1s, steady: 2s, cooldown: 0s }\n',
    );
    const child = spawn(process.execPath, [CLI, 'run', spec, '--workers', '2', '--out', join(dir, 'threads.json')], { stdio: 'ignore' });
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    try {
      // Read in the window, where both generator threads have been sending for a while.
      await sleep(2500);
      const pid = child.pid!;
      const tasks = readdirSync(`/proc/${pid}/task`)
        .map((tid) => ({ tid, stat: taskStat(pid, tid) }))
        .filter((t): t is { tid: string; stat: { nice: number; ticks: number } } => t.stat !== null);
      const main = tasks.find((t) => Number(t.tid) === pid)!;
      const rest = tasks.filter((t) => t !== main);
      expect(main.stat.nice).toBe(0);
      const atNormal = rest.filter((t) => t.stat.nice === 0);
      expect(rest.filter((t) => t.stat.nice === 19).length).toBeGreaterThanOrEqual(5);
      expect(atNormal).toHaveLength(2);
      // They are the generator threads: the two that have worked most, after the main thread.
      const busiest = [...rest].sort((a, b) => b.stat.ticks - a.stat.ticks).slice(0, 2);
      expect(new Set(busiest.map((t) => t.tid))).toEqual(new Set(atNormal.map((t) => t.tid)));
      expect(Math.min(...atNormal.map((t) => t.stat.ticks))).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  },
  30_000,
);
