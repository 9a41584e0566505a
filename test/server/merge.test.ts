import { mergeResults } from '../../src/result/merge.js';
import { parseResult } from '../../src/result/load.js';
import { histogramQuantiles, unavailableSection, windowSection } from '../../src/server/window.js';
import type { Snapshot } from '../../src/server/snapshot.js';
import { synthesize } from '../result/synthetic.js';

const snaps: Snapshot[] = [1000, 2000, 3000].map((t, i) => ({
  t,
  sent: t - 1,
  gauges: { running: 2 + i, waiting: i },
  counters: {},
  histograms: {},
}));
const bounds = { runStart: 0, windowStart: 1000, windowEnd: 3000, seriesIntervalS: 1, seriesLength: 4 };
const server = windowSection(snaps, bounds, { url: 'http://127.0.0.1:1/metrics', engine: 'vllm', interval_s: 1 });
const network = { probes: 10, connect_ms: { p50: 0.2, p99: 0.4 }, rtt_ms: { p50: 0.5, p99: 0.9 } };

/** A replicate's scrapes: gauges, a preemption counter and a TTFT histogram growing by `ttft` (counts per bucket) between its two window scrapes. */
function replicate(running: number[], ttft: number[], preempted: number) {
  const le = [0.01, 0.02, 0.04, Infinity];
  const cumulative = (xs: number[]) => xs.map((_, i) => xs.slice(0, i + 1).reduce((a, b) => a + b, 0));
  const snaps: Snapshot[] = running.map((r, i) => ({
    t: 1000 + i * 1000,
    sent: 999 + i * 1000,
    gauges: { running: r, waiting: 0 },
    counters: { preemptions: i === 0 ? 5 : 5 + preempted },
    histograms: {
      ttft:
        i === 0
          ? { le, counts: [1, 1, 1, 1], sum: 0.005, count: 1 }
          : {
              le,
              counts: cumulative(ttft).map((c) => c + 1),
              sum: 0.005 + ttft.reduce((a, n, j) => a + n * [0.005, 0.015, 0.03, 0.05][j], 0),
              count: 1 + ttft.reduce((a, b) => a + b, 0),
            },
    },
  }));
  const b = {
    runStart: 0,
    windowStart: 1000,
    windowEnd: 1000 + (running.length - 1) * 1000,
    seriesIntervalS: 1,
    seriesLength: running.length + 1,
  };
  return windowSection(snaps, b, { url: 'http://127.0.0.1:1/metrics', engine: 'vllm', interval_s: 1 });
}

test('replicates combine their server views: scrapes, weighted gauges, added counters, quantiles from the added buckets', () => {
  const a = replicate([2, 4], [8, 2, 0, 0], 1); // fast: most first tokens under 10 ms
  const b = replicate([6, 6, 6, 6], [0, 0, 6, 4], 3); // slow: 40 ms and beyond
  const ra = { ...synthesize({ seed: 1 }), server: a, network };
  const rb = { ...synthesize({ seed: 2 }), server: b };
  const merged = mergeResults([ra, rb], { mode: 'replicates' }).server!;
  expect(merged.scrapes).toBe(6);
  // Mean over every scrape, not the mean of the two means (3 and 6 → 4.5).
  expect(merged.summary.running).toEqual({ mean: 5, max: 6, last: 6 });
  expect(merged.summary.preemptions).toBe(4);
  expect(merged.summary.preemptions_per_s).toBeCloseTo(4 / (ra.load.window_s + rb.load.window_s), 3);
  // The TTFT quantiles are read from the buckets added, as one run with all 20 requests would read them.
  const added = histogramQuantiles({
    le: [0.01, 0.02, 0.04, Infinity],
    counts: [8, 10, 16, 20],
    sum: a.ttft_ms!.buckets!.sum + b.ttft_ms!.buckets!.sum,
    count: 20,
  })!;
  expect(merged.ttft_ms).toEqual(added);
  expect(merged.ttft_ms!.count).toBe(20);
  expect(merged.ttft_ms!.p50).toBeGreaterThan(a.ttft_ms!.p50); // neither replicate's alone
  expect(merged.ttft_ms!.p50).toBeLessThan(b.ttft_ms!.p50);
  expect(merged.timeseries.running.slice(0, 3)).toEqual([null, 4, 5]); // [–, (2+6)/2, (4+6)/2]
  expect(merged.note).toBeUndefined();
  expect(mergeResults([ra, rb], { mode: 'replicates' }).network).toEqual(network);
  expect(() => parseResult(JSON.stringify(mergeResults([ra, rb], { mode: 'replicates' })), 'merged')).not.toThrow();

  // Older results carry no buckets: the first replicate's quantiles stay, and the note says so.
  const old = { ...rb, server: { ...b, ttft_ms: { ...b.ttft_ms!, buckets: undefined } } };
  const partly = mergeResults([ra, old], { mode: 'replicates' }).server!;
  expect(partly.ttft_ms).toEqual(a.ttft_ms);
  expect(partly.note).toBe('TTFT quantiles of the first replicate only (an input has no buckets to add)');
  // Shards scraped one server at the same time: never added.
  expect(mergeResults([ra, rb], { mode: 'shards', force: true }).server).toEqual(a);
});

test('a merge keeps the one server view it has, never adds scrapes of one server', () => {
  const withView = { ...synthesize({ seed: 1 }), server, network };
  const without = synthesize({ seed: 2 });
  for (const mode of ['shards', 'replicates'] as const) {
    const merged = mergeResults([without, withView], { mode });
    expect(merged.server).toEqual(server);
    expect(merged.network).toEqual(network);
    expect(merged.server!.summary.running).toEqual({ mean: 3, max: 4, last: 4 });
    expect(() => parseResult(JSON.stringify(merged), 'merged')).not.toThrow();
  }
  const neither = mergeResults([without, synthesize({ seed: 3 })]);
  expect(neither).not.toHaveProperty('server');
  expect(neither).not.toHaveProperty('network');
});

test('results without the sections (older files) still load; a malformed section does not', () => {
  expect(() => parseResult(JSON.stringify(synthesize()), 'old')).not.toThrow();
  const off = { ...synthesize(), server: unavailableSection({ url: 'u', engine: null, interval_s: 1 }, 'no metrics at u (HTTP 404)') };
  expect(() => parseResult(JSON.stringify(off), 'off')).not.toThrow();
  const bad = { ...synthesize(), server: { ...server, scrapes: -1 } };
  expect(() => parseResult(JSON.stringify(bad), 'bad')).toThrow(/bad: not a valid loadgate result: \/server\/scrapes/);
});
