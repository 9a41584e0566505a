import type { Outcome } from '../client/types.js';
import type { LatencySummary } from '../metrics/histogram.js';
import type { Spec } from '../spec/types.js';

export const RESULT_SCHEMA_VERSION = 1;

export type MetricName =
  | 'ttft_ms'
  | 'ttft_from_send_ms'
  | 'time_to_first_answer_ms'
  | 'tpot_ms'
  | 'itl_ms'
  | 'e2e_ms'
  | 'normalized_latency_ms'
  | 'schedule_lag_ms';

export interface ValidityCheck {
  name: string;
  ok: boolean;
  /** What was measured and what it was held against, in words a reader can act on. */
  message: string;
}

export interface Result {
  schema_version: number;
  tool: { name: 'loadgate'; version: string };
  created_at: string;
  spec: Spec;
  spec_hash: string;
  target: { url: string; api: 'chat' | 'completions'; model: string; simulator: boolean };
  environment: { node: string; platform: string; arch: string; cpus: number; cpu_model: string; workers: number };
  load: {
    mode: 'open' | 'closed';
    label: string;
    arrival: string;
    burstiness: number;
    concurrency: number | null;
    offered_rate_per_s: number;
    achieved_rate_per_s: number;
    warmup_s: number;
    window_s: number;
    cooldown_s: number;
    interrupted: boolean;
  };
  requests: {
    /** Every arrival whose time came; each ends in exactly one class. */
    scheduled: number;
    by_class: Record<Outcome, number>;
    /** Arrivals of the planned schedule never reached because the run was stopped early. */
    not_reached: number;
    window: { scheduled: number; by_class: Record<Outcome, number> };
    error_samples: { class: Outcome; detail: string; count: number }[];
  };
  metrics: Record<MetricName, LatencySummary | null>;
  throughput: {
    output_tokens_per_s: number;
    total_tokens_per_s: number;
    requests_per_s: number;
  };
  goodput: { slo: { ttft_ms: number; tpot_ms: number; e2e_ms: number }; requests: number; rate_per_s: number; fraction: number | null };
  rates: { http_5xx: number; http_429: number; errors: number };
  workload: {
    input_tokens: { requested: LatencySummary | null; delivered: LatencySummary | null };
    output_tokens: { requested: LatencySummary | null; delivered: LatencySummary | null };
    /** Where output token counts came from: the server's usage, content chunks, or both. */
    token_source: 'usage' | 'chunks' | 'mixed' | 'none';
    usage_missing: number;
    usage_chunk_mismatch: number;
  };
  generator: {
    event_loop_delay_ms: { p50: number; p99: number; max: number };
    cpu_s: number;
    cpu_utilization: number;
  };
  littles_law: { mean_in_flight: number; predicted_in_flight: number; ratio: number | null };
  validity: { valid: boolean; checks: ValidityCheck[] };
  timeseries: { interval_s: 1; sent: number[]; ok: number[]; errors: number[]; output_tokens: number[] };
  /** HdrHistograms (compressed base64, values in µs; token counts unitless), for exact merging and comparison. */
  histograms: Record<string, string>;
  definitions: Record<string, string>;
}
