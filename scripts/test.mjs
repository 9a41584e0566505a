#!/usr/bin/env node
// Runs the jest suite in five passes and writes one JSON summary of them all (.jest-results.json,
// as `jest --json` writes it: .ci/run reads its counts).
//
//   1. On three workers: the files of test/parallel-files.json, which start servers and processes
//      but assert nothing a busy core could change (test/parallel-files.test.ts), slowest first
//      (scripts/listed-first-sequencer.mjs).
//   2. On six workers: the load tests, every file in no list. Each judges its runs against
//      their own records (the fixture's write times, the run's own lag and error bound), and
//      spends most of its time waiting on the simulated engine, so six share two cores. The
//      slowest start first (test/load-order.json).
//   3. On two workers: the files of test/timed-files.json, which replay an engine K-fold faster
//      or bisect capacity against a tight SLO near the engine's ceiling. Together they use under
//      one core of two, so two at a time leaves each a core whenever it wakes; beside the load
//      tests they would wait behind other work. Slowest first.
//   4. One at a time: the files of test/solo-files.json, which measure the generator itself
//      (its timestamps' error, its event loop, its CPU, its threads, a timed run's validity),
//      search a series of short runs for change points, or run a CPU-bound engine (llama.cpp):
//      a neighbour's work would be what they measure, or they would be the neighbours' noise.
//   5. In the background, from the start of the first pass to the fourth: the unit layer, the
//      files of test/unit-files.json (they start no server, process or thread and hold nothing
//      to a timer; test/unit-files.test.ts keeps the list to such files), on three workers in
//      Linux's idle scheduling class (chrt --idle 0; elsewhere at the lowest nice). An idle-class
//      task runs only on a core nothing else wants and yields it the moment another task wakes,
//      so it fills the cores the first three passes leave idle (the timed pass uses under one
//      core of two) without taking a turn from them. Its files judge no clock (a hang guard
//      counts CPU time), so being starved while the other passes fill both cores costs them time, never a
//      verdict: their per-test time limit is raised to cover that wait. The fourth pass waits
//      for it: the generator's own measurements keep the machine to themselves.
//
//   node scripts/test.mjs --typecheck  # every pass, tsc beside the first (npm test, after the build)
//   node scripts/test.mjs              # every pass
//   node scripts/test.mjs --quick      # the unit layer alone, in the foreground (npm run test:quick)
//
// --typecheck runs `tsc -p tsconfig.json` (src/ and test/, strict) while the first pass runs and
// waits for it before the second: it is mostly one thread, and ahead of the suite it left one core
// of two idle for its 12 s. Type errors fail the suite and end it there, before the long passes;
// the timed passes never share the machine with it.
//
// Other arguments go to jest in every pass. The exit code is 1 when any pass failed.
// LOADGATE_TEST_WORKERS=a,b sets the first two passes' worker counts (a machine with more cores can
// take more at once); the others keep theirs by what they are for.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const JEST = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const SUMMARY = join(root, '.jest-results.json');

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const typecheck = args.includes('--typecheck');
const jestArgs = args.filter((a) => a !== '--quick' && a !== '--typecheck');

function jest(argv, options = {}) {
  return spawnSync(process.execPath, ['--experimental-vm-modules', JEST, ...argv], { cwd: root, stdio: 'inherit', ...options });
}

/** Every test file jest's own configuration matches, relative to the root. */
function allTestFiles() {
  const listed = jest(['--listTests', '--json'], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (listed.status !== 0) throw new Error('jest --listTests failed');
  return JSON.parse(listed.stdout).map((f) => relative(root, f));
}

const list = (name) => JSON.parse(readFileSync(join(root, 'test', name), 'utf8'));
const unit = list('unit-files.json');
const first = quick ? unit : list('parallel-files.json');
const timed = list('timed-files.json');
const solo = list('solo-files.json');
const listed = new Set([...unit, ...first, ...timed, ...solo]);
const SEQUENCER = join(root, 'scripts', 'listed-first-sequencer.mjs');
const [firstWorkers = 3, loadWorkers = 6] = (process.env.LOADGATE_TEST_WORKERS ?? '')
  .split(',')
  .map((w) => (/^[1-9]\d*$/.test(w.trim()) ? Number(w) : undefined));
const passes = [
  { name: quick ? 'unit layer' : 'parallel files', files: first, workers: quick ? 3 : firstWorkers, order: 'parallel-files.json' },
];
if (!quick)
  passes.push(
    { name: 'load tests', files: allTestFiles().filter((f) => !listed.has(f)), workers: loadWorkers, order: 'load-order.json' },
    { name: 'timed runs', files: timed, workers: 2, order: 'timed-files.json' },
    { name: 'generator measurements', files: solo, workers: 1, alone: true },
  );
/** The unit layer beside the first three passes; see the top of this file. */
const background = quick ? null : { name: 'unit layer (idle class, beside the first three passes)', files: unit, workers: 3 };
/**
 * Per-test limit of the background pass: its tests are short, but in the idle class they may get
 * no core while the other passes keep both busy (the load tests for about two minutes here).
 */
const BACKGROUND_TEST_TIMEOUT_MS = 600_000;

/**
 * CPU seconds of the children this process has waited for (Linux: /proc/self/stat's cutime and
 * cstime, fields 16 and 17, in clock ticks of 1/100 s), so each pass can say whether it was
 * bound by the machine's two cores or by its own waits; null elsewhere.
 */
function childCpuS() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

/**
 * A child in the background whose output goes to a file, not a pipe: the passes run with
 * spawnSync, which blocks this process's loop, and a full pipe would stall the child. The returned
 * function awaits its exit (once), prints its output and gives its exit code.
 */
function inBackground(name, command, argv) {
  const log = join(root, 'node_modules', '.cache', `loadgate-${name}-${process.pid}.log`);
  mkdirSync(dirname(log), { recursive: true });
  const fd = openSync(log, 'w');
  const child = spawn(command, argv, { cwd: root, stdio: ['ignore', fd, fd], env: { ...process.env, LOADGATE_TEST_ORDER: '' } });
  closeSync(fd);
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.once('error', () => resolve(1));
  });
  let result;
  return () =>
    (result ??= exited.then((code) => {
      process.stdout.write(readFileSync(log, 'utf8'));
      rmSync(log, { force: true });
      return code;
    }));
}

/** tsc beside the first pass (see --typecheck above). */
function startTypecheck() {
  const done = inBackground('tsc', process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
  let ok;
  // Once: the second pass waits for it, and the end of a one-pass run.
  return () => (ok ??= report());
  async function report() {
    const code = await done();
    // No duration: its exit is seen only once the pass that blocked this loop has ended.
    console.log(`typecheck (tsc, beside the first pass): ${code === 0 ? 'no errors' : 'failed'}`);
    return code === 0;
  }
}

/**
 * The background pass in the idle scheduling class: `chrt --idle 0` where util-linux has it
 * (Linux), else the lowest nice, which every platform's scheduler honours less strictly.
 */
function startBackground(pass, out) {
  const argv = [
    '--experimental-vm-modules',
    JEST,
    '--maxWorkers',
    String(pass.workers),
    '--testTimeout',
    String(BACKGROUND_TEST_TIMEOUT_MS),
    '--json',
    '--outputFile',
    out,
    ...jestArgs,
    '--runTestsByPath',
    ...pass.files,
  ];
  const chrt = spawnSync('chrt', ['--idle', '0', 'true']).status === 0;
  const done = chrt
    ? inBackground('unit', 'chrt', ['--idle', '0', process.execPath, ...argv])
    : inBackground('unit', 'nice', ['-n', '19', process.execPath, ...argv]);
  return async () => {
    const code = await done();
    // Its end from its own summary: this loop sees its exit only once the pass blocking it ends.
    let took = '';
    try {
      const s = JSON.parse(readFileSync(out, 'utf8'));
      took = ` in ${((Math.max(...s.testResults.map((t) => t.endTime)) - s.startTime) / 1000).toFixed(1)} s`;
    } catch {
      // no summary: collect() says so
    }
    console.log(`${pass.name}: ${pass.files.length} files on ${pass.workers} worker(s)${took}`);
    return code;
  };
}

/** Reads a pass's JSON summary into `summaries`; false when jest wrote none (it did not run). */
function collect(out) {
  try {
    summaries.push(JSON.parse(readFileSync(out, 'utf8')));
    rmSync(out);
    return true;
  } catch {
    return false;
  }
}

const summaries = [];
let failed = false;
let backgroundDone = null;
const backgroundOut = join(root, '.jest-results.background.json');

/**
 * Awaits the background pass and takes its summary, once. The generator measurements wait for it:
 * an idle-class neighbour still moved the quick start's schedule lag p99 to 9.9 ms (twice in a
 * row), so they keep the machine to themselves. It ends inside the timed pass here, so the wait is
 * usually nothing.
 */
async function finishBackground() {
  const t0 = Date.now();
  const done = backgroundDone;
  backgroundDone = null;
  if ((await done()) !== 0) failed = true;
  if (!collect(backgroundOut)) failed = true;
  const waited = (Date.now() - t0) / 1000;
  if (waited >= 0.1) console.log(`waited ${waited.toFixed(1)} s for the unit layer`);
}
const typechecked = typecheck ? startTypecheck() : null;
for (const [i, pass] of passes.entries()) {
  if (i === 1 && typechecked && !(await typechecked())) {
    // Type errors end the run here, before the long passes, as when tsc ran ahead of the suite.
    failed = true;
    console.log('type errors: the load tests, timed runs and generator measurements are not run');
    break;
  }
  if (i === 0 && background) {
    rmSync(backgroundOut, { force: true });
    backgroundDone = startBackground(background, backgroundOut);
  }
  if (pass.alone && backgroundDone) await finishBackground();
  const out = join(root, `.jest-results.${i}.json`);
  rmSync(out, { force: true });
  const t0 = Date.now();
  const cpu0 = childCpuS();
  const order = pass.order ? ['--testSequencer', SEQUENCER] : [];
  const r = jest(
    ['--maxWorkers', String(pass.workers), ...order, '--json', '--outputFile', out, ...jestArgs, '--runTestsByPath', ...pass.files],
    { env: { ...process.env, LOADGATE_TEST_ORDER: pass.order ?? '' } },
  );
  // Children's CPU as the kernel adds it on their exit: the background pass is counted at its end.
  const cpu = cpu0 === null ? '' : `, ${(childCpuS() - cpu0).toFixed(0)} CPU-s`;
  console.log(`${pass.name}: ${pass.files.length} files on ${pass.workers} worker(s) in ${((Date.now() - t0) / 1000).toFixed(1)} s${cpu}`);
  if (r.status !== 0) failed = true;
  if (!collect(out)) failed = true;
}
if (backgroundDone) await finishBackground();

/** One summary in jest's --json shape: counts added, test results one after the other. */
function merged(list) {
  const sum = { success: !failed, testResults: [] };
  for (const s of list) {
    for (const [k, v] of Object.entries(s)) if (k.startsWith('num') && typeof v === 'number') sum[k] = (sum[k] ?? 0) + v;
    sum.success &&= s.success;
    sum.startTime = Math.min(sum.startTime ?? Infinity, s.startTime);
    sum.testResults.push(...s.testResults);
  }
  return sum;
}
if (typechecked && !(await typechecked())) failed = true;
if (summaries.length > 0) writeFileSync(SUMMARY, JSON.stringify(merged(summaries)));
process.exit(failed ? 1 : 0);
