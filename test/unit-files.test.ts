/**
 * test/unit-files.json lists the unit layer: the files `npm test` runs in the background in the
 * idle scheduling class, beside the other passes, and `npm run test:quick` runs alone
 * (scripts/test.mjs). That is safe only for files that compute: none may start a server, a process
 * or a thread, or hold a result to a timer or the wall clock (a hang guard counts CPU time,
 * test/fixtures/cpu-time.ts), since a test there may wait long for a core.
 */
import { existsSync, readFileSync } from 'node:fs';

const unit = JSON.parse(readFileSync('test/unit-files.json', 'utf8')) as string[];

/** What a file that starts something, or waits on a timer, imports or calls. */
const STARTS_OR_WAITS = [
  /node:(child_process|http|https|net|worker_threads)\b/,
  /fixtures\/(scripted-server|fake-github|sim-process|delay-proxy)/,
  // Of run/, the abort rule (driven with made-up clock values) and the shard split only compute.
  /src\/(sim\/(launch|server)|server\/scraper|run\/(?!abort-watch\.|shard\.)|sweep\/run|action\/)/,
  /\bsetTimeout\b|\bsetInterval\b|\bsetImmediate\b/,
  /playwright|chromium|dist\//,
  // The wall clock: a test that waited for a core would read it late.
  /\bDate\.now\(|\bperformance\.now\(|\bprocess\.hrtime\b/,
];

test('the unit layer lists existing test files, each once', () => {
  expect(unit.length).toBeGreaterThan(20);
  expect(new Set(unit).size).toBe(unit.length);
  for (const f of unit) expect([f, existsSync(f) && /^test\/.*\.test\.ts$/.test(f)]).toEqual([f, true]);
});

test('no file of the unit layer starts a server, a process or a thread, waits on a timer or reads the wall clock', () => {
  // These two files name the patterns they look for: they are not read against them.
  const naming = new Set(['test/unit-files.test.ts', 'test/parallel-files.test.ts']);
  for (const f of unit.filter((x) => !naming.has(x))) {
    const found = STARTS_OR_WAITS.filter((p) => p.test(readFileSync(f, 'utf8')));
    expect([f, found.map(String)]).toEqual([f, []]);
  }
  expect(STARTS_OR_WAITS.some((p) => p.test('const t0 = performance.now();'))).toBe(true);
});
