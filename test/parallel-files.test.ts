/**
 * test/parallel-files.json lists, slowest first, the files that start servers or processes but hold nothing to
 * the clock: `npm test` runs them three at a time in its first pass (scripts/test.mjs,
 * docs/test-suite.md), before the load tests. A file belongs here only if a slower machine cannot change
 * what it asserts: it checks files, exit codes, messages, verdicts of fixed inputs, counts fixed
 * by its own spec, never a latency's upper bound, a rate achieved, a lag, a timestamp error or a
 * timed run's validity. A lower bound on a latency may stay (a busy core only makes it longer).
 *
 * What reading the source can check is checked below; the rest is the reader's judgment when a
 * file is added to the list, and stays so when the file changes.
 */
import { existsSync, readFileSync } from 'node:fs';

const parallel = JSON.parse(readFileSync('test/parallel-files.json', 'utf8')) as string[];
const unit = new Set(JSON.parse(readFileSync('test/unit-files.json', 'utf8')) as string[]);

/** What a file that measures time, or asserts on time measured, reads or names. */
const CLOCKED: readonly RegExp[] = [
  // Reading the clock: an elapsed time the file itself measures.
  /\bDate\.now\(|\bperformance\.now\(|\bprocess\.hrtime\b|from '[./]*src\/time\.js'/,
  // Fixtures whose point is to shape timing (delays between bytes, stalls).
  /fixtures\/delay-proxy/,
];

/** An assertion on a measured timing figure: validity, lag, timestamp error, an upper bound on a latency, a rate achieved. */
const TIMED_ASSERTION =
  /\bvalidity\b|timestamp_error|\blag|achieved|goodput|\b(?:ms|\w*_ms|\w*Ms|ttft\w*|tpot\w*|itl\w*|e2e\w*|latency\w*)\b[^;]*\.toBeLessThan/i;

/** A timer shorter than a watchdog's: a file that acts after a delay depends on how fast the other side is. */
const SHORT_TIMER = /\bset(?:Timeout|Interval)\([^;]*?,\s*(\d[\d_]*)\s*\)/g;

test('the list holds existing test files, each once, none of them in the unit layer', () => {
  expect(parallel.length).toBeGreaterThan(5);
  expect(new Set(parallel).size).toBe(parallel.length);
  for (const f of parallel) expect([f, existsSync(f) && /^test\/.*\.test\.ts$/.test(f), unit.has(f)]).toEqual([f, true, false]);
});

test('no listed file reads the clock or uses a timing fixture', () => {
  for (const f of parallel) {
    const found = CLOCKED.filter((p) => p.test(readFileSync(f, 'utf8')));
    expect([f, found.map(String)]).toEqual([f, []]);
  }
});

test('no listed file asserts on a measured timing figure', () => {
  for (const f of parallel) {
    const lines = readFileSync(f, 'utf8')
      .split('\n')
      .flatMap((l, i) => (/\bexpect\(/.test(l) && TIMED_ASSERTION.test(l) ? [`${f}:${i + 1}: ${l.trim()}`] : []));
    expect(lines).toEqual([]);
  }
});

test('no listed file waits on a timer shorter than 30 s (only watchdogs)', () => {
  for (const f of parallel) {
    const short = [...readFileSync(f, 'utf8').matchAll(SHORT_TIMER)].filter((m) => Number(m[1].replaceAll('_', '')) < 30_000);
    expect([f, short.map((m) => m[0])]).toEqual([f, []]);
  }
});

test('the checks catch what they are for', () => {
  const asserted = [
    'expect(r.validity.valid).toBe(true);',
    'expect(r.generator.timestamp_error_ms.p99).toBeLessThan(1);',
    'expect(result.metrics.ttft_ms.p50).toBeLessThan(40);',
    'expect(r.ms).toBeLessThan(5000);',
    'expect(sweep.goodput).toBeGreaterThan(0.9);',
  ];
  expect(asserted.filter((l) => !TIMED_ASSERTION.test(l))).toEqual([]);
  expect(TIMED_ASSERTION.test("expect(Number(o['ttft-p50-ms'])).toBeGreaterThanOrEqual(15);")).toBe(false);
  expect(TIMED_ASSERTION.test('expect(cut.length).toBeLessThanOrEqual(limit);')).toBe(false);
  expect(CLOCKED.some((p) => p.test('const t0 = Date.now();'))).toBe(true);
  expect([...'setTimeout(() => child.kill("SIGINT"), 1200);'.matchAll(SHORT_TIMER)].map((m) => m[1])).toEqual(['1200']);
});
