import { decodeHistogram, newHistogram, SHIFT_DIGITS, type Histogram } from '../../src/metrics/histogram.js';
import { parseResult } from '../../src/result/load.js';
import { mergeResults } from '../../src/result/merge.js';
import {
  deliveryFloorMs,
  TIMESTAMP_ERROR_HISTOGRAMS,
  timestampError,
  timestampErrorOf,
  type TimestampError,
} from '../../src/result/timestamp-error.js';
import { isLoopbackTarget } from '../../src/spec/url.js';
import type { Result } from '../../src/result/types.js';
import { encodeHistogram } from '../../src/metrics/histogram.js';
import { synthesize } from './synthetic.js';

/** A histogram of µs values, each with its count. */
function hist(entries: [ms: number, count: number][], digits: 3 | 4 = 3): Histogram {
  const h = newHistogram(digits);
  for (const [ms, count] of entries) h.recordValueWithCount(Math.round(ms * 1000), count);
  return h;
}

/** The chunk figures of a chunk bound, as a result's `chunk` holds them. */
const chunkOf = (t: TimestampError) => ({ p50: t.p50, p90: t.p90, p99: t.p99 });
/** A chunk bound as a result states it when there is no quantile shift to take: the same figures, twice. */
const withChunk = (t: TimestampError) => ({ ...t, chunk: chunkOf(t) });

describe('the bound from turns and lateness', () => {
  test('one read per 1 ms turn, the loop idle 90 % of the time: the bound is the place of the read in its turn, plus a little', () => {
    // Q (place in its turn) is uniform on (0, 1 ms): its median 0.5, p99 0.99. R: a byte lands in
    // a turn with probability 10 %, so at the median it waits nothing and R adds only through
    // the split of the union bound; at the p99 it can have waited most of a turn.
    const turns = hist([[1, 100]]);
    const b = timestampError(turns, turns, hist([]), 1000)!;
    expect(b.p50).toBeGreaterThanOrEqual(0.5);
    expect(b.p50).toBeLessThanOrEqual(0.65);
    expect(b.p90).toBeGreaterThanOrEqual(0.9);
    expect(b.p90).toBeLessThanOrEqual(1.1);
    expect(b.p99).toBeGreaterThanOrEqual(1.5);
    expect(b.p99).toBeLessThanOrEqual(2);
    expect(b.max).toBe(2);
    expect(b.observed_s).toBe(1);
  });

  test('reads always quick, but a tenth of the lateness samples up to 20 ms: the p99 carries the stalls, the p90 does not', () => {
    // 10 % of moments fall in a stall, uniformly inside it: P(R > w) = 0.1 · (1 − w/20) for a
    // stall of 20 ms, so R's p99 is 18 ms; at the p90 only the first half millisecond of a stall,
    // which the union bound's finest split (1/40 of the 10 % left to Q) still charges to R.
    const late = hist([[0, 900], ...Array.from({ length: 100 }, (_, i): [number, number] => [(i + 0.5) * 0.2, 1])]);
    const quick = hist([[0.01, 1000]]);
    const b = timestampError(quick, quick, late, 1000)!;
    expect(b.p90).toBeLessThan(1);
    expect(b.p99).toBeGreaterThan(17);
    expect(b.p99).toBeLessThan(19.5);
    expect(b.max).toBeCloseTo(19.91, 1);
  });

  test('long read turns catch more arrivals (the inspection paradox): one 50 ms turn among many short ones moves the p99', () => {
    const short = hist([[0.1, 1000]]);
    const withLong = hist([
      [0.1, 1000],
      [50, 1],
    ]);
    const reads = hist([
      [0.1, 1000],
      [50, 100],
    ]);
    const calm = timestampError(short, short, hist([]), 1000)!;
    const stalled = timestampError(withLong, reads, hist([]), 1000)!;
    expect(calm.p99).toBeLessThan(0.25);
    // 5 % of the time in the long turn, and 9 % of the reads in it: both R and Q reach into it.
    expect(stalled.p99).toBeGreaterThan(40);
    expect(stalled.p50).toBeLessThan(1);
  });

  test('the delivery floor lies under every figure, and is taken on loopback targets only', () => {
    const turns = hist([[1, 100]]);
    const plain = timestampError(turns, turns, hist([]), 1000)!;
    const floored = timestampError(turns, turns, hist([]), 1000, 0.12)!;
    for (const k of ['p50', 'p90', 'p99', 'max'] as const) expect(floored[k]).toBeCloseTo(plain[k] + 0.12, 3);
    expect(floored.delivery_ms).toBe(0.12);
    expect(plain.delivery_ms).toBe(0);
    // Half the probe's 10th-percentile round trip: two deliveries and the server's handling of
    // GET /models, at its quicker end; the median, in results older than the p10.
    expect(deliveryFloorMs(true, { p10: 0.2, p50: 0.3 })).toBe(0.1);
    expect(deliveryFloorMs(true, { p50: 0.3 })).toBe(0.15);
    expect(deliveryFloorMs(false, { p10: 0.2, p50: 0.3 })).toBe(0);
    expect(deliveryFloorMs(true, null)).toBe(0);
    expect(['sim', 'http://127.0.0.1:8000/v1', 'http://[::1]:8000/v1', 'http://localhost/v1'].every(isLoopbackTarget)).toBe(true);
    expect(
      ['http://10.0.0.2:8000/v1', 'https://api.example.com/v1', 'http://127.0.0.1.nip.io/v1', 'not a url'].some(isLoopbackTarget),
    ).toBe(false);
  });

  test("late reads in a burst that made the tail: the quantile figures are the TTFT quantile shift the requests' own bounds allow, the chunk figure kept beside them", () => {
    // 1,000 requests, TTFT 50 ms, every chunk read quickly by the turn figures (0.1 ms turns), but
    // the 20 slowest requests (60 ms) were read in a stall and each carries a 15 ms bound: their
    // true TTFT may be 45 ms, so the true p99 may be 50 ms and the client's 60 ms moved it by 10.
    const quick = hist([[0.1, 10_000]]);
    const ttft = hist([
      [50, 980],
      [60, 20],
    ]);
    const earliest = hist([
      [50, 980],
      [45, 20],
    ]);
    const chunk = timestampError(quick, quick, hist([]), 10_000, 0.05)!;
    const loop = { loopTurns: quick, loopReadTurns: quick, loopLateness: hist([]) };
    const b = timestampErrorOf({ ...loop, ttft, ttftEarliest: earliest }, 10_000, 0.05)!;
    expect(chunk.p99).toBeLessThan(1);
    expect(b.p99).toBeCloseTo(10.05, 1); // 60 − 50 ms, plus the delivery floor
    expect(b.max).toBeGreaterThanOrEqual(b.p99);
    expect(b.p50).toBe(0.05); // the median request is not one of them: 50 − 50 ms, the delivery floor alone
    expect(b.chunk).toEqual(chunkOf(chunk));
    // Requests that carry no bound of their own (read with no one timing the turns) move nothing
    // but the delivery floor; the chunk figure stays beside them.
    expect(timestampErrorOf({ ...loop, ttft, ttftEarliest: ttft }, 10_000, 0.05)).toMatchObject({
      p50: 0.05,
      p90: 0.05,
      p99: 0.05,
      p999: 0.05,
      chunk: chunkOf(chunk),
      max: chunk.max,
    });
    // Without the twin histograms (no window request read) the quantile figures are the chunk's.
    expect(timestampErrorOf({ ...loop, ttft }, 10_000, 0.05)).toEqual(withChunk(chunk));
  });

  test("each quantile figure holds at the gate's percentiles of its band: a shift at p95 alone is in the p90 figure", () => {
    // TTFTs 1…1000 ms; the 31 requests around the p95 (930…960 ms) carry a 10 ms bound of their
    // own, the rest none: the p95 may have moved, the p90 and p99 cannot.
    const values = Array.from({ length: 1000 }, (_, i) => i + 1);
    const ttft = hist(values.map((v) => [v, 1]));
    const earliest = hist(values.map((v) => [v >= 930 && v <= 960 ? v - 10 : v, 1]));
    const at = (h: Histogram, p: number) => h.getValueAtPercentile(p) / 1000;
    const shift = (p: number) => at(ttft, p) - at(earliest, p);
    expect([shift(90), shift(99), shift(95)]).toEqual([0, 0, expect.closeTo(10, 0)]);
    const quick = hist([[0.1, 10_000]]);
    const b = timestampErrorOf({ loopTurns: quick, loopReadTurns: quick, loopLateness: hist([]), ttft, ttftEarliest: earliest }, 10_000)!;
    expect(b.p90).toBeGreaterThanOrEqual(shift(95) - 0.001); // rounded to the µs
    expect([b.p50, b.p99, b.p999]).toEqual([0, 0, 0]);
    // The slowest two requests alone carrying a bound move the p99.9, not the p99: the p999 figure holds it.
    const [fine, slowest] = [0, 0.5].map((b) =>
      hist(
        values.map((v) => [v >= 999 ? v - b : v, 1]),
        SHIFT_DIGITS,
      ),
    );
    const tail = timestampErrorOf(
      { loopTurns: quick, loopReadTurns: quick, loopLateness: hist([]), ttft: fine, ttftEarliest: slowest },
      10_000,
    )!;
    expect([tail.p50, tail.p90, tail.p99]).toEqual([0, 0, 0]);
    expect(tail.p999).toBeCloseTo(0.5, 1);
  });

  test("TTFT's and E2E's figures apart: last reads held up move the E2E quantiles, and the TTFT figures stay the TTFT shift", () => {
    // 1,000 requests: first reads on time (TTFT 50 ms, no bound), the last reads of the slowest
    // 20 (E2E 700 ms) each carrying a 5 ms bound.
    const ttft = hist([[50, 1000]], SHIFT_DIGITS);
    const e2e = hist(
      [
        [650, 980],
        [700, 20],
      ],
      SHIFT_DIGITS,
    );
    const e2eEarliest = hist(
      [
        [650, 980],
        [695, 20],
      ],
      SHIFT_DIGITS,
    );
    const quick = hist([[0.1, 10_000]]);
    const b = timestampErrorOf(
      { loopTurns: quick, loopReadTurns: quick, loopLateness: hist([]), ttft, ttftEarliest: ttft, e2e, e2eEarliest },
      10_000,
      0.05,
    )!;
    expect([b.p50, b.p90, b.p99, b.p999]).toEqual([0.05, 0.05, 0.05, 0.05]);
    // Within a bucket of a 700 ms value at 4 digits (32 µs).
    const e2eFigures = b.e2e!;
    expect([e2eFigures.p50, e2eFigures.p90]).toEqual([0.05, 0.05]);
    for (const v of [e2eFigures.p99, e2eFigures.p999]) expect(Math.abs(v - 5.05)).toBeLessThanOrEqual(0.032);
    expect(b.max).toBeGreaterThanOrEqual(5.05);
  });

  test('the quantile histograms resolve a shift of a tenth of a millisecond at a 700 ms E2E, which 3 digits round to 0 or to half a millisecond', () => {
    // 1,000 requests, E2E spread over 690…710 ms, each read 0.1 ms late by its own bound.
    const e2es = Array.from({ length: 1000 }, (_, i) => 690 + (i % 200) / 10);
    const figures = (digits: 3 | 4) => {
      const e2e = hist(
        e2es.map((v) => [v, 1]),
        digits,
      );
      const earliest = hist(
        e2es.map((v) => [v - 0.1, 1]),
        digits,
      );
      const quick = hist([[0.1, 10_000]]);
      // Through the encoding a result carries, as the gate reads it.
      const [c, l] = [e2e, earliest].map((h) => decodeHistogram(encodeHistogram(h)));
      return timestampErrorOf({ loopTurns: quick, loopReadTurns: quick, loopLateness: hist([]), e2e: c, e2eEarliest: l }, 10_000)!;
    };
    const fine = figures(SHIFT_DIGITS);
    for (const k of ['p50', 'p90', 'p99', 'p999'] as const) expect([k, Math.abs((fine[k] ?? NaN) - 0.1) <= 0.032]).toEqual([k, true]);
    const coarse = figures(3);
    expect((['p50', 'p90', 'p99', 'p999'] as const).some((k) => Math.abs((coarse[k] ?? NaN) - 0.1) > 0.09)).toBe(true);
  });

  test('no read timed: no bound', () => {
    expect(timestampError(hist([]), hist([]), hist([]), 1000)).toBeNull();
  });
});

describe('merging', () => {
  /** A synthetic result carrying a timestamp error section over the given histograms. */
  function withBound(r: Result, turns: Histogram, reads: Histogram, late: Histogram, observedMs: number): Result {
    const section = timestampError(turns, reads, late, observedMs)!;
    return {
      ...r,
      generator: { ...r.generator, timestamp_error_ms: section },
      histograms: {
        ...r.histograms,
        [TIMESTAMP_ERROR_HISTOGRAMS.turns]: encodeHistogram(turns),
        [TIMESTAMP_ERROR_HISTOGRAMS.readTurns]: encodeHistogram(reads),
        [TIMESTAMP_ERROR_HISTOGRAMS.late]: encodeHistogram(late),
      },
    };
  }
  const calm = [hist([[0.2, 500]]), hist([[0.2, 800]]), hist([[0.05, 300]])] as const;
  const busy = [
    hist([
      [0.2, 400],
      [30, 4],
    ]),
    hist([
      [0.2, 600],
      [30, 200],
    ]),
    hist([
      [0.05, 280],
      [25, 20],
    ]),
  ] as const;

  test("threads (shards): recomputed from the merged histograms over their summed loop time, the busy thread's stalls included", () => {
    const [a, b] = [0, 1].map((k) => synthesize({ n: 100, include: (i) => i % 2 === k }));
    const merged = mergeResults([withBound(a, ...calm, 3000), withBound(b, ...busy, 3000)], { mode: 'shards' });
    const sum = (i: 0 | 1 | 2) => {
      const h = newHistogram();
      h.add(calm[i]);
      h.add(busy[i]);
      return h;
    };
    // The chunk figures from the summed histograms; the quantile figures from the merged requests
    // (these synthetic ones carry no read bound of their own, so they move nothing).
    const summed = timestampError(sum(0), sum(1), sum(2), 6000)!;
    expect(merged.generator.timestamp_error_ms).toMatchObject({ chunk: chunkOf(summed), max: summed.max, observed_s: 6, p99: 0 });
    // The calm thread dilutes the busy one's tail but does not hide it.
    const busyAlone = timestampError(...busy, 3000)!;
    expect(merged.generator.timestamp_error_ms!.chunk!.p99).toBeGreaterThan(timestampError(...calm, 3000)!.p99);
    expect(merged.generator.timestamp_error_ms!.max).toBe(busyAlone.max);
    expect(parseResult(JSON.stringify(merged), 'merged.json').generator.timestamp_error_ms).toEqual(merged.generator.timestamp_error_ms);
    // The quantile histograms keep their digits through the merge, so the shift is taken as finely as in one run.
    for (const k of ['ttft', 'ttftEarliest', 'e2e', 'e2eEarliest', 'tpot'])
      expect([k, decodeHistogram(merged.histograms[k]).numberOfSignificantValueDigits]).toEqual([k, k === 'tpot' ? 3 : SHIFT_DIGITS]);
  });

  test('an input without the section (an older result) leaves it out of the merge; older results still load', () => {
    const older = synthesize({ n: 50, seed: 2 });
    expect(older.generator.timestamp_error_ms).toBeUndefined();
    const merged = mergeResults([withBound(synthesize({ n: 50 }), ...calm, 3000), older]);
    expect(merged.generator.timestamp_error_ms).toBeUndefined();
    expect(parseResult(JSON.stringify(older), 'older.json').generator.timestamp_error_ms).toBeUndefined();
  });
});
