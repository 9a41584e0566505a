import type { MetricType } from './exposition.js';

/**
 * loadgate's server-side series. Gauges are sampled at each scrape; counters become rates
 * (or ratios) over the window; histograms (seconds) are differenced between the window's
 * first and last scrape.
 */
export const GAUGE_SERIES = ['running', 'waiting', 'kv_cache_usage', 'batch_size', 'prefix_cache_hit_rate_gauge'] as const;
export const COUNTER_SERIES = ['prefix_cache_queries', 'prefix_cache_hits', 'preemptions'] as const;
export const HISTOGRAM_SERIES = ['ttft', 'queue_time', 'itl'] as const;
export type GaugeSeries = (typeof GAUGE_SERIES)[number];
export type CounterSeries = (typeof COUNTER_SERIES)[number];
export type HistogramSeries = (typeof HISTOGRAM_SERIES)[number];
export type ServerSeries = GaugeSeries | CounterSeries | HistogramSeries;

export const ENGINE_NAMES = ['vllm', 'sglang', 'tgi', 'llamacpp'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export interface EngineMetric {
  engine: EngineName;
  series: ServerSeries;
  /** The family name as the engine's TYPE line gives it (a counter without its _total). */
  family: string;
  type: Extract<MetricType, 'gauge' | 'counter' | 'histogram'>;
  /**
   * How several label sets of one family (models, ranks) combine: counts of requests add,
   * shares (KV use, hit rate) take the largest.
   */
  combine: 'sum' | 'max';
}

const m = (
  engine: EngineName,
  series: ServerSeries,
  family: string,
  type: EngineMetric['type'],
  combine: EngineMetric['combine'] = 'sum',
): EngineMetric => ({
  engine,
  series,
  family,
  type,
  combine,
});

/**
 * The one table from engine metric names to loadgate's series, from the engines' documented
 * metrics. Where an engine renamed a metric, both names are listed, newest first: the first
 * one the server exposes is used. KV usage is a share 0…1 in every engine (vLLM's "_perc"
 * included). TGI's batch size is its running set; llama.cpp's busy slots per decode is the
 * batch it decodes, its `requests_processing` the running requests.
 */
export const ENGINE_METRICS: readonly EngineMetric[] = [
  m('vllm', 'running', 'vllm:num_requests_running', 'gauge'),
  m('vllm', 'waiting', 'vllm:num_requests_waiting', 'gauge'),
  m('vllm', 'kv_cache_usage', 'vllm:kv_cache_usage_perc', 'gauge', 'max'),
  m('vllm', 'kv_cache_usage', 'vllm:gpu_cache_usage_perc', 'gauge', 'max'),
  m('vllm', 'prefix_cache_queries', 'vllm:prefix_cache_queries', 'counter'),
  m('vllm', 'prefix_cache_queries', 'vllm:gpu_prefix_cache_queries', 'counter'),
  m('vllm', 'prefix_cache_hits', 'vllm:prefix_cache_hits', 'counter'),
  m('vllm', 'prefix_cache_hits', 'vllm:gpu_prefix_cache_hits', 'counter'),
  m('vllm', 'preemptions', 'vllm:num_preemptions', 'counter'),
  m('vllm', 'ttft', 'vllm:time_to_first_token_seconds', 'histogram'),
  m('vllm', 'queue_time', 'vllm:request_queue_time_seconds', 'histogram'),
  m('vllm', 'itl', 'vllm:inter_token_latency_seconds', 'histogram'),
  m('vllm', 'itl', 'vllm:time_per_output_token_seconds', 'histogram'),

  m('sglang', 'running', 'sglang:num_running_reqs', 'gauge'),
  m('sglang', 'waiting', 'sglang:num_queue_reqs', 'gauge'),
  m('sglang', 'kv_cache_usage', 'sglang:token_usage', 'gauge', 'max'),
  m('sglang', 'prefix_cache_hit_rate_gauge', 'sglang:cache_hit_rate', 'gauge', 'max'),
  // SGLang retracts (evicts a running request to free KV slots and reruns it later): its preemption.
  // The counter, not the sglang:num_retracted_reqs gauge, which holds only the last batch's.
  m('sglang', 'preemptions', 'sglang:num_retracted_requests', 'counter'),
  m('sglang', 'ttft', 'sglang:time_to_first_token_seconds', 'histogram'),
  m('sglang', 'queue_time', 'sglang:queue_time_seconds', 'histogram'),
  m('sglang', 'itl', 'sglang:inter_token_latency_seconds', 'histogram'),
  m('sglang', 'itl', 'sglang:time_per_output_token_seconds', 'histogram'),

  m('tgi', 'waiting', 'tgi_queue_size', 'gauge'),
  m('tgi', 'running', 'tgi_batch_current_size', 'gauge'),
  m('tgi', 'queue_time', 'tgi_request_queue_duration', 'histogram'),

  m('llamacpp', 'running', 'llamacpp:requests_processing', 'gauge'),
  m('llamacpp', 'waiting', 'llamacpp:requests_deferred', 'gauge'),
  m('llamacpp', 'kv_cache_usage', 'llamacpp:kv_cache_usage_ratio', 'gauge', 'max'),
  m('llamacpp', 'batch_size', 'llamacpp:n_busy_slots_per_decode', 'gauge', 'max'),
];

/** The engine whose names an exposition uses: the one with most of its table's families present; null when none. */
export function detectEngine(families: ReadonlySet<string>): EngineName | null {
  let best: EngineName | null = null;
  let bestCount = 0;
  for (const engine of ['vllm', 'sglang', 'tgi', 'llamacpp'] as const) {
    const n = ENGINE_METRICS.filter((e) => e.engine === engine && families.has(e.family)).length;
    if (n > bestCount) [best, bestCount] = [engine, n];
  }
  return best;
}
