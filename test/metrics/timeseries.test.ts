import { coarsenCounts, TimeSeries } from '../../src/metrics/timeseries.js';

test('a long run halves its resolution instead of growing: at most 900 points, totals kept', () => {
  const s = new TimeSeries(0);
  const hours = 1;
  for (let t = 0; t < hours * 3600_000; t += 250) {
    s.recordSent(t);
    s.recordFinished(t + 100, t % 1000 !== 0, 3);
  }
  expect(s.intervalS).toBe(4);
  expect(s.sent.length).toBeLessThanOrEqual(900);
  expect(s.sent.reduce((a, b) => a + b, 0)).toBe(hours * 3600 * 4);
  expect(s.errors.reduce((a, b) => a + b, 0)).toBe(hours * 3600);
  expect(s.outputTokens.reduce((a, b) => a + b, 0)).toBe(3 * hours * 3600 * 3);
  expect(s.sent[10]).toBe(16); // 4 per second × 4 s
});

test('a short run keeps one-second points', () => {
  const s = new TimeSeries(1000);
  s.recordSent(1500);
  s.recordSent(3200);
  expect(s.intervalS).toBe(1);
  expect(s.sent).toEqual([1, 0, 1]);
});

test('coarsenCounts sums runs of counts', () => {
  expect(coarsenCounts([1, 2, 3, 4, 5], 2)).toEqual([3, 7, 5]);
  expect(coarsenCounts([1, 2, 3], 1)).toEqual([1, 2, 3]);
});
