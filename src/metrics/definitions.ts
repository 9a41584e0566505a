import { PERCENTILES, type PercentileKey } from './histogram.js';
import type { HistogramName } from './recorder.js';

/**
 * What the peer tools call the figure a reader would set beside ours. Their names follow their
 * definitions, not their spelling: genai-perf/aiperf and guidellm call (E2E − TTFT)/(tokens − 1)
 * "inter-token latency", which is our TPOT; aiperf's per-chunk gap is "inter-chunk latency", our
 * ITL. All three time from the actual send, so their TTFT is by definition our ttft_from_send_ms;
 * it is listed on ttft_ms, the coordinated-omission-safe figure loadgate reports (and writes into
 * vLLM's field with --format vllm, src/result/vllm.ts). null: the tool has no such figure.
 */
export interface PeerNames {
  /** `vllm bench serve --save-result`: the infix of mean_<name>_ms, p99_<name>_ms, … */
  vllm: string | null;
  /** genai-perf / aiperf metric tag. */
  aiperf: string | null;
  guidellm: string | null;
}

/** One latency a result reports, in every spelling the code and the reports need. */
export interface MetricDefinition {
  /** Key under a result's `metrics`, e.g. ttft_ms. */
  key: string;
  /** Stem of the gate's rule keys (`ttft` → ttft_p95, ttft_p99 …); null when the gate does not judge it. */
  gate: string | null;
  /** What reports and rules call it ("TTFT"; a rule adds the percentile: "TTFT p95"). */
  label: string;
  unit: 'ms';
  /** The recorder histogram (src/metrics/recorder.ts) it is summarized from. */
  histogram: HistogramName;
  /** Stated in every result and report, so a reader never has to guess what a number means. */
  definition: string;
  peers: PeerNames;
  /** Sliced into the steady window's segments (metrics/segments.ts) for the gate's within-run drift. */
  segments: boolean;
  /** Kept per phase of a load pattern and per soak segment (metrics/pattern-recorder.ts), so the soak's drift judges it. */
  phases: boolean;
  /** The reports' percentile chart that shows it: a request's (first token, end to end), a token's, or none. */
  chart: 'request' | 'token' | null;
}

/**
 * The metric table: the latencies of a result's `metrics` section, in reading order. Result
 * keys, gate keys, labels, report rows and the definitions stored in each result come from here.
 */
export const METRICS = [
  {
    key: 'ttft_ms',
    gate: 'ttft',
    label: 'TTFT',
    unit: 'ms',
    histogram: 'ttft',
    definition: 'time to first token = first content chunk − intended send time (coordinated-omission safe); role-only chunks do not count',
    peers: { vllm: 'ttft', aiperf: 'time_to_first_token', guidellm: 'time_to_first_token_ms' },
    segments: true,
    phases: true,
    chart: 'request',
  },
  {
    key: 'ttft_from_send_ms',
    gate: 'ttft_from_send',
    label: 'TTFT from send',
    unit: 'ms',
    histogram: 'ttftFromSend',
    definition: 'first content chunk − actual send time (hides generator lateness; for comparison only)',
    peers: { vllm: null, aiperf: null, guidellm: null },
    segments: false,
    phases: false,
    chart: null,
  },
  {
    key: 'time_to_first_answer_ms',
    gate: 'time_to_first_answer',
    label: 'First answer token',
    unit: 'ms',
    histogram: 'timeToFirstAnswer',
    definition: 'first non-reasoning content chunk − intended send time',
    peers: { vllm: null, aiperf: 'time_to_first_output_token', guidellm: null },
    segments: false,
    phases: false,
    chart: null,
  },
  {
    key: 'tpot_ms',
    gate: 'tpot',
    label: 'TPOT',
    unit: 'ms',
    histogram: 'tpot',
    definition: 'time per output token = (last content chunk − first content chunk) / (output tokens − 1), requests with > 1 token',
    peers: { vllm: 'tpot', aiperf: 'inter_token_latency', guidellm: 'inter_token_latency_ms' },
    segments: true,
    phases: true,
    chart: 'token',
  },
  {
    key: 'itl_ms',
    gate: 'itl',
    label: 'ITL',
    unit: 'ms',
    histogram: 'itl',
    definition: 'inter-token latency = each gap between consecutive content chunks (excludes TTFT)',
    peers: { vllm: 'itl', aiperf: 'inter_chunk_latency', guidellm: null },
    segments: true,
    phases: false,
    chart: 'token',
  },
  {
    key: 'e2e_ms',
    gate: 'e2e',
    label: 'E2E',
    unit: 'ms',
    histogram: 'e2e',
    definition: 'end-to-end = last content chunk − intended send time',
    peers: { vllm: 'e2el', aiperf: 'request_latency', guidellm: 'request_latency' },
    segments: true,
    phases: true,
    chart: 'request',
  },
  {
    key: 'normalized_latency_ms',
    gate: 'normalized_latency',
    label: 'E2E per token',
    unit: 'ms',
    histogram: 'normalized',
    definition: 'E2E / output tokens',
    peers: { vllm: null, aiperf: null, guidellm: 'time_per_output_token_ms' },
    segments: false,
    phases: false,
    chart: null,
  },
  {
    key: 'schedule_lag_ms',
    gate: null,
    label: 'Schedule lag',
    unit: 'ms',
    histogram: 'scheduleLag',
    definition: "actual send − intended send: the load generator's own lateness",
    peers: { vllm: null, aiperf: null, guidellm: null },
    segments: false,
    phases: false,
    chart: null,
  },
] as const satisfies readonly MetricDefinition[];

export type Metric = (typeof METRICS)[number];
/** A key of a result's `metrics`, e.g. ttft_ms. */
export type MetricName = Metric['key'];
/** A metric the gate judges, by its rule-key stem, e.g. ttft. */
export type GateMetric = Exclude<Metric['gate'], null>;
/** A gate rule key, `<metric>_<percentile>`, e.g. ttft_p95. */
export type LatencyKey = `${GateMetric}_${PercentileKey}`;

/** The metrics the gate judges, in reading order. */
export const GATE_METRICS = METRICS.filter((m): m is Extract<Metric, { gate: string }> => m.gate !== null);

/** The metrics sliced into segments, by recorder histogram name (ttft, tpot, itl, e2e). */
export type SegmentMetric = Extract<Metric, { segments: true }>['histogram'];
export const SEGMENT_METRICS = METRICS.filter((m): m is Extract<Metric, { segments: true }> => m.segments).map((m) => m.histogram);
/** The metrics kept per pattern phase and soak segment, by recorder histogram name (ttft, tpot, e2e). */
export type PhaseMetric = Extract<Metric, { phases: true }>['histogram'];
export const PHASE_METRICS = METRICS.filter((m): m is Extract<Metric, { phases: true }> => m.phases).map((m) => m.histogram);
/** The metrics a report's percentile chart of that kind shows, in reading order. */
export const chartedMetrics = (chart?: 'request' | 'token') =>
  METRICS.filter((m) => (chart === undefined ? m.chart !== null : m.chart === chart));

/** "p99.9" for p999: how reports and rules print a percentile. */
export const percentileLabel = (key: PercentileKey) => `p${PERCENTILES.find(([k]) => k === key)![1]}`;

/** What a gate rule key points at in a result. */
export interface LatencyTarget {
  key: LatencyKey;
  /** The metric as rule ids and errorBound name it: the key less its percentile ("tpot"). */
  gate: string;
  metric: MetricName;
  histogram: HistogramName;
  pct: PercentileKey;
  /** The percentile as a number, e.g. 99.9. */
  p: number;
  /** e.g. "TTFT p95". */
  label: string;
}

/** Every gate key the table allows, in reading order (metric, then percentile). */
export const LATENCY_TARGETS: readonly LatencyTarget[] = GATE_METRICS.flatMap((m) =>
  PERCENTILES.map(([pct, p]) => ({
    key: `${m.gate}_${pct}` as const,
    gate: m.gate,
    metric: m.key,
    histogram: m.histogram,
    pct,
    p,
    label: `${m.label} ${percentileLabel(pct)}`,
  })),
);

/**
 * Definitions of figures outside the metrics section: the generator's own delays, throughput,
 * goodput and the window itself. With the table's, they are the `definitions` of every result.
 */
const OTHER_DEFINITIONS = {
  pool_wait_ms:
    "being written on a connection − actual send: time a window request waited inside the generator's HTTP pool, opening a connection included; for a request re-sent after a reused connection was closed under it, until the write that counted",
  reconnects:
    'requests re-sent, once, on a new connection because the server closed the reused kept-alive connection they were written on before any response; their latency still runs from the intended send time',
  window_cpu:
    "the generator thread's CPU over the window in shares of one core (the busiest thread when several): busy = its CPU time − the event-loop turns the dispatcher spun idle before arrivals (timed as they happen); spin = those turns",
  timestamp_error_ms:
    "how far the timestamps can have moved a TTFT or E2E quantile (p50/p90/p99: each quantile less the same quantile of the requests less each one's own read bound), and how late one chunk's timestamp can be (chunk: the wait for the loop to come round, from read-turn residuals and arrival and probe lateness, plus the place in its own read turn, combined by a union bound), from the generator's own event loop",
  throughput:
    'successful requests that ended inside the steady window (whenever they were scheduled), and their output and prompt tokens, per second of the window: past saturation it flattens at what the server can complete',
  goodput:
    'successful requests meeting every SLO (TTFT, TPOT, E2E), per second of the window and as a fraction of requests scheduled in it',
  window: 'latency metrics cover successful requests whose intended send time falls in the steady window; warmup and cooldown are excluded',
};

/** Stated in every result and report, so a reader never has to guess what a number means. */
export const DEFINITIONS: Record<string, string> = {
  ...Object.fromEntries(METRICS.map((m) => [m.key, m.definition])),
  ...OTHER_DEFINITIONS,
};
