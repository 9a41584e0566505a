import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { node24 } from '../action/harness.js';

/**
 * The flags the CLI and the Action set first thing must keep the collector's work on the thread
 * that allocates. Measured in a child process (flags are the process's), bundled from the real
 * module: the same allocation churn with and without `collectGarbageOnOwnThreads()`, and each
 * thread's CPU time from /proc. Without the flags the helper threads do a large share of the
 * work (which shows the measurement can see them); with them, a small part (the full
 * collection's atomic pause, which stays parallel). Also on the Node 24 the Action runs on,
 * where the suite has one (.ci/run installs it).
 */
const linux = process.platform === 'linux';
const dir = mkdtempSync(join(tmpdir(), 'loadgate-gc-threads-'));
const harness = join(dir, 'churn.mjs');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  await build({
    stdin: {
      contents: `
import { readdirSync, readFileSync } from 'node:fs';
import { collectGarbageOnOwnThreads } from ${JSON.stringify(resolve('src/run/gc-threads.ts'))};
if (process.argv[2] === 'on') collectGarbageOnOwnThreads();
// Objects that live a while (as requests in flight do) beside short-lived buffers (as reads do).
let batch = [];
const kept = [];
for (let i = 0; i < 1_500_000; i++) {
  batch.push({ i, bytes: Buffer.allocUnsafeSlow(64) });
  if (batch.length === 100_000) { kept.push(batch); if (kept.length > 8) kept.shift(); batch = []; }
}
const ticks = { main: 0, helpers: 0 };
for (const task of readdirSync('/proc/self/task')) {
  const fields = readFileSync('/proc/self/task/' + task + '/stat', 'utf8').split(') ')[1].split(' ');
  ticks[Number(task) === process.pid ? 'main' : 'helpers'] += Number(fields[11]) + Number(fields[12]);
}
console.log(JSON.stringify(ticks));
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

function helperShare(mode: 'on' | 'off', node = process.execPath): number {
  const r = spawnSync(node, [harness, mode], { encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe(''); // an unknown flag would be reported here
  const { main, helpers } = JSON.parse(r.stdout) as { main: number; helpers: number };
  return helpers / (main + helpers);
}

function expectHelpersIdle(node: string): void {
  const without = helperShare('off', node);
  const withFlags = helperShare('on', node);
  // Measured: about half without, a tenth with (the full collection's atomic pause stays parallel).
  expect(without).toBeGreaterThan(0.3);
  expect(withFlags).toBeLessThan(Math.min(0.2, without / 3));
}

(linux ? test : test.skip)('with the flags, V8 helper threads do a small part of the collection work, not half of it', () => {
  expectHelpersIdle(process.execPath);
});

const node = node24();
(linux && node ? test : test.skip)(`the same on Node 24, which the Action runs on (${node ?? 'not found: set LOADGATE_NODE24'})`, () => {
  expectHelpersIdle(node!);
});
