import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExpositionError, parseExposition } from '../../src/server/exposition.js';
import { engineRows, snapshotOf } from '../../src/server/snapshot.js';
import { bucketQuantile, histogramQuantiles, windowSection } from '../../src/server/window.js';

const sample = (engine: string) => readFileSync(join('test', 'fixtures', 'expositions', `${engine}.prom`), 'utf8');
const read = (engine: string) => {
  const families = parseExposition(sample(engine));
  const { engine: found, rows } = engineRows(families);
  return { found, snap: snapshotOf(1000, families, rows), families };
};

test('vLLM: gauges, counters written with _total, histograms with their labels, _sum and _count', () => {
  const { found, snap, families } = read('vllm');
  expect(found).toBe('vllm');
  expect(snap.gauges).toEqual({ running: 12, waiting: 3, kv_cache_usage: 0.71 });
  expect(snap.counters).toEqual({ prefix_cache_queries: 40960, prefix_cache_hits: 10240, preemptions: 2 });
  const ttft = snap.histograms.ttft!;
  expect(ttft.le).toEqual([0.001, 0.1, 0.25, 0.5, Infinity]);
  expect(ttft.counts).toEqual([0, 40, 90, 100, 100]);
  expect([ttft.sum, ttft.count]).toEqual([9.5, 100]);
  expect(snap.histograms.queue_time!.count).toBe(100);
  expect(snap.histograms.itl!.counts).toEqual([500, 1000, 1000]);
  const bucket = families.get('vllm:time_to_first_token_seconds')!.samples.find((s) => s.labels.le === '0.1')!;
  expect(bucket.labels).toEqual({ engine: '0', le: '0.1', model_name: 'meta-llama/Llama-3.1-8B-Instruct' });
  expect(families.get('vllm:kv_cache_usage_perc')!.help).toBe('KV-cache usage. 1 means 100 percent usage.');
});

test('SGLang: its queue, token usage and hit-rate gauge, and its TTFT histogram in exponent notation', () => {
  const { found, snap } = read('sglang');
  expect(found).toBe('sglang');
  expect(snap.gauges).toEqual({ running: 24, waiting: 5, kv_cache_usage: 0.28, prefix_cache_hit_rate_gauge: 0.4375 });
  // Retractions are its preemptions: the cumulative counter over both data-parallel ranks, not the last-batch gauge.
  expect(snap.counters).toEqual({ preemptions: 5 });
  expect(snap.histograms.ttft!.sum).toBeCloseTo(23.518979474117756, 12);
  expect(histogramQuantiles(snap.histograms.ttft!)!.p50).toBe(100);
});

test('TGI: queue size, batch size and the queue-duration histogram, with no HELP lines', () => {
  const { found, snap } = read('tgi');
  expect(found).toBe('tgi');
  expect(snap.gauges).toEqual({ waiting: 7, running: 16 });
  // 40 observations: rank 20 falls in (0.005, 0.05] holding 20, 10 below it: halfway.
  expect(bucketQuantile(snap.histograms.queue_time!, 0.5)).toBeCloseTo(0.0275, 12);
});

test('llama.cpp: processing, deferred, KV ratio and busy slots per decode', () => {
  const { found, snap } = read('llamacpp');
  expect(found).toBe('llamacpp');
  expect(snap.gauges).toEqual({ running: 4, waiting: 2, kv_cache_usage: 0.425, batch_size: 3.5 });
});

test('label values unescape \\\\, \\" and \\n; HELP unescapes \\\\ and \\n and keeps anything else', () => {
  const text = [
    '# HELP odd_metric Odd: "quotes", {braces}, # hashes, a \\\\ backslash, a \\n newline and ünïcödé',
    '# TYPE odd_metric gauge',
    'odd_metric{path="C:\\\\models\\\\x",quote="say \\"hi\\"",nl="a\\nb",empty=""} 1.5e3 1700000000000',
    '# a plain comment that is neither HELP nor TYPE',
    'odd_metric{path="second",} +Inf',
    'no_labels NaN',
  ].join('\n');
  const f = parseExposition(text);
  const odd = f.get('odd_metric')!;
  expect(odd.help).toBe('Odd: "quotes", {braces}, # hashes, a \\ backslash, a \n newline and ünïcödé');
  expect(odd.samples[0].labels).toEqual({ path: 'C:\\models\\x', quote: 'say "hi"', nl: 'a\nb', empty: '' });
  expect(odd.samples[0].value).toBe(1500);
  expect(odd.samples[1]).toEqual({ name: 'odd_metric', labels: { path: 'second' }, value: Infinity });
  expect(f.get('no_labels')!.samples[0].value).toBeNaN();
  expect(f.get('no_labels')!.type).toBe('untyped');
});

test('malformed lines are refused with the line number, never half-read', () => {
  const bad = [
    ['m{a="unterminated} 1', /line 1: m: label a has an unterminated value/],
    ['m{a="x\\q"} 1', /unknown escape \\q/],
    ['m{a="1",a="2"} 1', /label a is given twice/],
    ['m 1 2 3', /expected a value and an optional timestamp/],
    ['m one', /"one" is not a number/],
    ['# TYPE m gauges', /TYPE of m is "gauges"/],
    ['<html>', /expected a metric name/],
  ] as const;
  for (const [text] of bad) expect(() => parseExposition(`ok 1\n${text}`)).toThrow(ExpositionError);
  for (const [text, message] of bad) expect(() => parseExposition(text)).toThrow(message);
});

test('an exposition of none of the engines is recognised as none', () => {
  expect(engineRows(parseExposition('# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 3\n')).engine).toBeNull();
});

test('window: histograms differenced between the first and last scrape in the window, warmup left out', () => {
  const families = (ttftBelow100ms: number, total: number, waiting: number, queries: number, hits: number) =>
    parseExposition(
      [
        '# TYPE vllm:num_requests_waiting gauge',
        `vllm:num_requests_waiting ${waiting}`,
        '# TYPE vllm:prefix_cache_queries_total counter',
        `vllm:prefix_cache_queries_total ${queries}`,
        '# TYPE vllm:prefix_cache_hits_total counter',
        `vllm:prefix_cache_hits_total ${hits}`,
        '# TYPE vllm:time_to_first_token_seconds histogram',
        `vllm:time_to_first_token_seconds_bucket{le="0.1"} ${ttftBelow100ms}`,
        `vllm:time_to_first_token_seconds_bucket{le="1"} ${total}`,
        `vllm:time_to_first_token_seconds_bucket{le="+Inf"} ${total}`,
        `vllm:time_to_first_token_seconds_sum 0`,
        `vllm:time_to_first_token_seconds_count ${total}`,
      ].join('\n'),
    );
  const { rows } = engineRows(families(0, 0, 0, 0, 0));
  // Warmup: 50 slow requests (all > 100 ms). Window: 100 more, all ≤ 100 ms.
  const snaps = [
    snapshotOf(500, families(0, 50, 9, 1000, 0), rows),
    snapshotOf(1000, families(0, 50, 1, 1000, 0), rows),
    snapshotOf(2000, families(50, 100, 2, 2000, 250), rows),
    snapshotOf(3000, families(100, 150, 3, 3000, 500), rows),
  ];
  const s = windowSection(
    snaps,
    { runStart: 0, windowStart: 1000, windowEnd: 3000, seriesIntervalS: 1, seriesLength: 4 },
    {
      url: 'u',
      engine: 'vllm',
      interval_s: 1,
    },
  );
  expect(s.ttft_ms!.count).toBe(100);
  expect(s.ttft_ms!.p99).toBeLessThanOrEqual(100);
  expect(s.summary.waiting).toEqual({ mean: 2, max: 3, last: 3 });
  expect(s.summary.prefix_cache_hit_rate).toBe(0.25);
  expect(s.timeseries.waiting).toEqual([9, 1, 2, 3]);
});
