import fc from 'fast-check';
import { newHistogram, recordMs, summarizeCounts, summarizeMs } from '../../src/metrics/histogram.js';
import { round3 } from '../../src/numbers.js';
import { PERCENTILES } from '../../src/metrics/histogram.js';

/** The summary as HdrHistogram's own methods give it, one walk per figure. */
function reference(h: ReturnType<typeof newHistogram>, unit: number) {
  if (h.totalCount === 0) return null;
  const s: Record<string, number> = {
    count: h.totalCount,
    mean: round3(h.mean / unit),
    min: round3(h.getValueAtPercentile(0) / unit),
    max: round3(h.getValueAtPercentile(100) / unit),
  };
  for (const [key, p] of PERCENTILES) s[key] = round3(h.getValueAtPercentile(p) / unit);
  return s;
}

test("a summary's figures are the histogram's own mean and percentiles, key for key and in the same order", () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.double({ min: 0, max: 50, noNaN: true }), fc.double({ min: 0, max: 120_000, noNaN: true })), { maxLength: 400 }),
      (values) => {
        const h = newHistogram();
        for (const v of values) recordMs(h, v);
        const got = summarizeMs(h);
        const want = reference(h, 1000);
        expect(got).toEqual(want);
        if (got) expect(Object.keys(got)).toEqual(Object.keys(want!));
      },
    ),
    { seed: 7, numRuns: 300 },
  );
  const counts = newHistogram();
  for (const v of [1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597]) counts.recordValue(v);
  expect(summarizeCounts(counts)).toEqual(reference(counts, 1));
  expect(summarizeMs(newHistogram())).toBeNull();
});
