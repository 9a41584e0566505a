/**
 * The lists scripts/test.mjs runs the suite by: test/timed-files.json (the files that hold timed
 * runs to time compressed K-fold or to an absolute SLO near the engine's ceiling, two at a time
 * after the load tests), test/solo-files.json (the files that measure the generator itself, a
 * timed run's validity included, search a series of short runs for change points, or run a
 * CPU-bound engine, one at a time, last) and test/load-order.json (the order the load tests start
 * in, slowest first). A file in no list is a load test: it runs six at a time.
 */
import { existsSync, readFileSync } from 'node:fs';

const list = (name: string) => JSON.parse(readFileSync(`test/${name}`, 'utf8')) as string[];
const unit = new Set(list('unit-files.json'));
const parallel = new Set(list('parallel-files.json'));
const solo = list('solo-files.json');
const timed = list('timed-files.json');
const order = list('load-order.json');

const isTestFile = (f: string) => existsSync(f) && /^test\/.*\.test\.ts$/.test(f);

test('the solo and timed files exist, each once, and are in no other list', () => {
  for (const [mine, others] of [
    [solo, [...timed, ...order]],
    [timed, [...solo, ...order]],
  ]) {
    expect(mine.length).toBeGreaterThan(0);
    expect(new Set(mine).size).toBe(mine.length);
    for (const f of mine) expect([f, isTestFile(f), unit.has(f) || parallel.has(f) || others.includes(f)]).toEqual([f, true, false]);
  }
});

test('the load order names load tests only, each once', () => {
  expect(new Set(order).size).toBe(order.length);
  for (const f of order)
    expect([f, isTestFile(f), unit.has(f) || parallel.has(f) || solo.includes(f) || timed.includes(f)]).toEqual([f, true, false]);
});

test("a solo file measures the generator (timestamps, loop, CPU, threads, a timed run's validity), searches runs for change points or runs a CPU-bound engine; a timed file holds timed runs to compressed time or an SLO near the ceiling", () => {
  const SOLO =
    /timestamp_error|threadCpuMs|observeReadTurns|workers: 2|server.*recorded|spawnLlamaServer|validity\.valid|'history', 'check'/;
  const TIMED = /times faster|capacity_at_slo/;
  for (const f of solo) expect([f, SOLO.test(readFileSync(f, 'utf8'))]).toEqual([f, true]);
  for (const f of timed) expect([f, TIMED.test(readFileSync(f, 'utf8'))]).toEqual([f, true]);
});
