import { mergeResults } from '../../src/result/merge.js';
import { parseResult } from '../../src/result/load.js';
import { unavailableSection, windowSection } from '../../src/server/window.js';
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
