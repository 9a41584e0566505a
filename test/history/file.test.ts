import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendHistoryFile, appendToHistory, parseHistory, readHistoryFile } from '../../src/history/file.js';
import { historyLine, lineOfResult } from '../../src/history/line.js';
import { toBenchmarkAction, toBmf } from '../../src/history/export.js';
import { errorBound } from '../../src/gate/timing-validity.js';
import { round3 } from '../../src/numbers.js';
import { defaultGate } from '../../src/spec/gate-schema.js';
import type { HistoryLine } from '../../src/history/types.js';
import { synthesize, lognormal } from '../result/synthetic.js';

const night = (i: number): HistoryLine => ({
  ...historyLine(synthesize({ seed: i, n: 200, ttft: lognormal(40, 0.2) }), defaultGate(), { commit: `c${i}`.padEnd(40, '0') }),
  run_id: `run${i}`,
});

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'loadgate-history-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the history file', () => {
  it('holds every gated figure of a result with its interval and the timestamp error bound', () => {
    const r = synthesize({ seed: 3, n: 400, ttft: lognormal(50, 0.3) });
    // The run's own bounds: its TTFT and E2E quantiles moved by at most 0.2–0.6 ms, a chunk late by up to 4 ms.
    const te = { p50: 0.2, p90: 0.3, p99: 0.6, chunk: { p50: 0.5, p90: 1, p99: 4 }, max: 9, delivery_ms: 0.1, method: 'm', observed_s: 5 };
    Object.assign(r.generator, { timestamp_error_ms: te });
    const line = lineOfResult(r, { commit: 'abc', ref: 'refs/heads/main', runner: 'r1' });
    expect(line).toMatchObject({ run_id: r.run_id, date: r.created_at, commit: 'abc', ref: 'refs/heads/main', spec_hash: r.spec_hash });
    expect(['pass', 'fail', 'inconclusive']).toContain(line.verdict);
    const ttft = line.metrics.ttft_p95;
    expect(ttft.value).toBe(r.metrics.ttft_ms!.p95);
    expect(ttft.lower!).toBeLessThanOrEqual(ttft.value);
    expect(ttft.upper!).toBeGreaterThanOrEqual(ttft.value);
    expect(ttft.upper! - ttft.lower!).toBeGreaterThan(0);
    // Each figure carries the bound the gate reads for it: TTFT p95's from the quantile figures (or
    // the schedule lag, whichever is larger), TPOT p50's from the chunk figure over the output's gaps.
    expect(ttft.timestamp_error_ms).toBe(round3(errorBound(r, 95, 'ttft').ms));
    expect(ttft.timestamp_error_ms).toBeLessThan(1);
    expect(line.metrics.tpot_p50.timestamp_error_ms).toBe(round3(errorBound(r, 50, 'tpot').ms));
    expect(lineOfResult(synthesize({ seed: 3, n: 40 })).metrics.ttft_p95.timestamp_error_ms).toBeNull(); // no bound stated
    expect(Object.keys(line.metrics)).toEqual(
      expect.arrayContaining(['ttft_p95', 'tpot_p50', 'e2e_p95', 'output_tokens_per_s', 'error_rate']),
    );
    expect(line.metrics.output_tokens_per_s.better).toBe('higher');
    expect(lineOfResult(r)).toEqual(lineOfResult(r)); // the intervals are seeded
  });

  it('appends without rewriting past lines, skips a run id already there, and drops the oldest past history-max', () => {
    const path = join(dir, 'h.jsonl');
    // A past line written by hand, with spacing JSON.stringify would not make: it must survive byte for byte.
    const past = JSON.stringify(night(0), null, 0).replace('"v":1', '"v": 1');
    writeFileSync(path, `${past}\n`);
    const a = appendHistoryFile(path, [night(1), night(2), night(1)], 0);
    expect(a.added.map((l) => l.run_id)).toEqual(['run1', 'run2']);
    expect(a.duplicates).toEqual(['run1']);
    expect(readFileSync(path, 'utf8').startsWith(`${past}\n`)).toBe(true);
    expect(appendHistoryFile(path, [night(2)], 0).added).toEqual([]);
    expect(readHistoryFile(path).map((l) => l.run_id)).toEqual(['run0', 'run1', 'run2']);
    const bounded = appendHistoryFile(path, [night(3), night(4)], 3);
    expect(bounded.dropped).toBe(2);
    expect(readHistoryFile(path).map((l) => l.run_id)).toEqual(['run2', 'run3', 'run4']);
  });

  it('starts a history in a new folder and reads a missing file as an empty one', () => {
    const path = join(dir, 'deep', 'h.jsonl');
    expect(readHistoryFile(path)).toEqual([]);
    appendHistoryFile(path, [night(1)], 10);
    expect(readHistoryFile(path)).toHaveLength(1);
  });

  it('names the line that is not a history line', () => {
    expect(() => parseHistory(`${JSON.stringify(night(1))}\n{oops\n`, 'h.jsonl')).toThrow(/^h\.jsonl line 2 is not JSON/);
    expect(() => parseHistory('{"v":1}\n', 'h.jsonl')).toThrow(
      /^h\.jsonl line 1 has no run_id; expected a line written by loadgate history append$/,
    );
    expect(() => parseHistory('{"v":9,"run_id":"x"}\n', 'h.jsonl')).toThrow(/version 9/);
    expect(
      appendToHistory('\n\n', [night(1)], 0, 'x')
        .text.split('\n')
        .filter(Boolean),
    ).toHaveLength(1);
  });
});

describe('exports', () => {
  it("writes github-action-benchmark's custom formats, one direction per file, and Bencher's BMF", () => {
    const line = night(5);
    const smaller = toBenchmarkAction(line, 'smaller');
    const bigger = toBenchmarkAction(line, 'bigger');
    expect(smaller.find((e) => e.name.endsWith('TTFT p95'))).toMatchObject({
      unit: 'ms',
      value: line.metrics.ttft_p95.value,
      range: expect.stringMatching(/^± \d/),
    });
    expect(smaller.every((e) => typeof e.value === 'number' && e.unit && e.name)).toBe(true);
    expect(bigger.map((e) => e.name)).toEqual(expect.arrayContaining([expect.stringMatching(/Output tokens\/s$/)]));
    expect(smaller.some((e) => /tokens\/s/.test(e.name))).toBe(false);
    const bmf = toBmf(line);
    const measures = bmf[line.spec_name];
    expect(measures.ttft_p95_ms).toEqual({
      value: line.metrics.ttft_p95.value,
      lower_value: line.metrics.ttft_p95.lower,
      upper_value: line.metrics.ttft_p95.upper,
    });
    expect(measures.output_tokens_per_s.value).toBe(line.metrics.output_tokens_per_s.value);
  });
});
