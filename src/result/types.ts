import type { NetworkSection, ServerSection } from '../server/types.js';
import type { KeepAliveFacts } from '../client/keep-alive.js';
import type { Outcome } from '../client/types.js';
import { METRICS, type MetricName } from '../metrics/definitions.js';
import type { CountSummary, DelayTail, LatencySummary } from '../metrics/histogram.js';
import type { HistogramName } from '../metrics/recorder.js';
import type { WindowCpu } from '../metrics/window-cpu.js';
import type { Spec } from '../spec/types.js';
import type { WorkloadPlan } from '../workload/types.js';
import type { TimestampError } from './timestamp-error.js';
import type { PatternSection } from './pattern.js';
import type { Segments } from './segments.js';

export const RESULT_SCHEMA_VERSION = 1;

export type { MetricName };

/** Which recorder histogram (src/metrics/recorder.ts) each latency summary is computed from. */
export const METRIC_HISTOGRAM = Object.fromEntries(METRICS.map((m) => [m.key, m.histogram])) as Record<MetricName, HistogramName>;

/**
 * replicates: the same benchmark run several times one after another. Windows add up;
 *   rates are totals over the total window time (a window-weighted mean).
 * shards: parallel generators, each at rate/N, over the same wall-clock window. The window
 *   is shared; rates and counts add.
 */
export type MergeMode = 'replicates' | 'shards';

export interface MergeInfo {
  mode: MergeMode;
  /** Number of original runs inside (a merged input counts as the runs it holds). */
  merged_from: number;
  /** Merged with --force although the inputs' spec hashes or models differ. */
  forced: boolean;
}

/** Run-to-run spread of replicates: coefficient of variation (sd / mean) of key metrics across the inputs. */
export interface ReplicateSpread {
  count: number;
  /** Keys like "ttft_ms.p95", "throughput.output_tokens_per_s". */
  cv: Record<string, number>;
}

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
  /** Prefix of every request's x-request-id, to join server logs with the raw records. */
  run_id: string;
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
    /** Results made before the `cancelled` class existed lack that key (read it as 0). */
    by_class: Record<Outcome, number>;
    /** Arrivals of the planned schedule never reached because the run was stopped early. */
    not_reached: number;
    window: { scheduled: number; by_class: Record<Outcome, number> };
    error_samples: { class: Outcome; detail: string; count: number }[];
    /**
     * Requests re-sent, once, on a new connection because the server closed the reused
     * kept-alive connection they were written on before any response (it never answered them).
     * Each still ends in one class. Absent in results made before loadgate re-sent them.
     */
    reconnects?: number;
    /** What the server did with kept-alive connections; `disabled`: the client stopped reusing them. Absent in older results. */
    keep_alive?: KeepAliveFacts;
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
    /** `spec`: the distribution the spec (or dataset) describes; `requested`: what was asked of the window's requests; `delivered`: the server's usage. */
    input_tokens: { spec?: CountSummary | null; requested: CountSummary | null; delivered: CountSummary | null };
    output_tokens: {
      spec?: CountSummary | null;
      requested: CountSummary | null;
      delivered: CountSummary | null;
      /** Successful window requests that got fewer output tokens than max_tokens asked for, and the mean tokens they lacked. */
      shortfall?: { requests: number; mean_tokens: number | null };
    };
    /** Where output token counts came from: the server's usage, content chunks, or both. */
    token_source: 'usage' | 'chunks' | 'mixed' | 'none';
    usage_missing: number;
    usage_chunk_mismatch: number;
    /** How prompts and lengths were made (src/workload). Absent in merged results. */
    plan?: WorkloadPlan;
  };
  generator: {
    event_loop_delay_ms: DelayTail;
    cpu_s: number;
    cpu_utilization: number;
    /** Memory at the end of the run: flat across run lengths, since nothing is kept per request. */
    heap_mb: number;
    rss_mb: number;
    /**
     * The generator thread over the window (the busiest, when several), as shares of one core:
     * busy is its CPU less the dispatcher's idle spin before arrivals. Null where per-thread CPU
     * cannot be read. Absent from results made before loadgate measured it.
     */
    window_cpu?: WindowCpu | null;
    /** Window requests' wait inside the HTTP pool between send and being written (connecting included); null if none was written. Absent in older results. */
    pool_wait_ms?: DelayTail | null;
    /**
     * How late a chunk's timestamp can be, from the generator's own event loop (src/result/timestamp-error.ts
     * derives it); null when no read was timed in the window. Absent in older results.
     */
    timestamp_error_ms?: TimestampError | null;
  };
  littles_law: {
    mean_in_flight: number;
    predicted_in_flight: number;
    ratio: number | null;
    /** Most requests in flight at once during the window. Absent in results made before loadgate measured it. */
    peak_in_flight?: number;
  };
  validity: { valid: boolean; checks: ValidityCheck[] };
  /** Counts per interval (1 s, doubled as often as needed to keep at most 900 points). */
  timeseries: { interval_s: number; sent: number[]; ok: number[]; errors: number[]; output_tokens: number[] };
  /** Per-slice percentiles of the window (src/result/segments.ts), for the gate's drift estimate. Absent in older results. */
  segments?: Segments;
  /** HdrHistograms (compressed base64, values in µs; token counts unitless), for exact merging and comparison. */
  histograms: Record<string, string>;
  definitions: Record<string, string>;
  /** Present when the result combines several (src/result/merge.ts), generator threads included. */
  merge?: MergeInfo;
  /** Present when the result merges two or more replicates. */
  replicates?: ReplicateSpread;
  /** What a ramp, spike, steps or soak load showed over time (src/result/pattern.ts). Absent for a steady rate. */
  pattern?: PatternSection;
  /** Present when load.abort stopped the run early. */
  abort?: AbortInfo;
  /** The server's own view of the window from its /metrics (src/server); absent when turned off or in older results. */
  server?: ServerSection;
  /** Connect time, TLS handshake and request round trip, probed before the warmup; absent in older results. */
  network?: NetworkSection;
}

/** Why and when load.abort stopped a run; its gate verdict is inconclusive, or fail with load.abort.fail. */
export interface AbortInfo {
  reason: 'error_rate' | 'over_saturation';
  /** Seconds from the start of the run (ramp-up and warmup included). */
  at_s: number;
  detail: string;
  fail: boolean;
}
