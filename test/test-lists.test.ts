/**
 * The lists scripts/test.mjs runs the suite by: test/solo-files.json (the files that measure the
 * generator itself, hold a timed run to its validity or to time compressed K-fold, or run a
 * CPU-bound engine, one at a time after the rest) and test/load-order.json (the order the
 * load tests start in, slowest first). A file in no list is a load test: it runs three at a time.
 */
import { existsSync, readFileSync } from 'node:fs';

const list = (name: string) => JSON.parse(readFileSync(`test/${name}`, 'utf8')) as string[];
const unit = new Set(list('unit-files.json'));
const parallel = new Set(list('parallel-files.json'));
const solo = list('solo-files.json');
const order = list('load-order.json');

const isTestFile = (f: string) => existsSync(f) && /^test\/.*\.test\.ts$/.test(f);

test('the solo files exist, each once, and are in no other list', () => {
  expect(solo.length).toBeGreaterThan(0);
  expect(new Set(solo).size).toBe(solo.length);
  for (const f of solo) expect([f, isTestFile(f), unit.has(f) || parallel.has(f) || order.includes(f)]).toEqual([f, true, false]);
});

test('the load order names load tests only, each once', () => {
  expect(new Set(order).size).toBe(order.length);
  for (const f of order) expect([f, isTestFile(f), unit.has(f) || parallel.has(f) || solo.includes(f)]).toEqual([f, true, false]);
});

test('a solo file measures the generator (timestamps, loop, CPU, threads), holds timed runs to validity, compressed time or a change-point search, or runs a CPU-bound engine', () => {
  const MEASURES_GENERATOR =
    /timestamp_error|threadCpuMs|observeReadTurns|workers: 2|server.*recorded|validity\.valid|times faster|spawnLlamaServer|'history', 'check'/;
  for (const f of solo) expect([f, MEASURES_GENERATOR.test(readFileSync(f, 'utf8'))]).toEqual([f, true]);
});
