import type { GateSpec } from './gate-schema.js';
import type { SizingSpec, SweepSpec } from './sweep-schema.js';
import type { ThinkTime } from './think-time.js';

export type { ThinkTime };
/**
 * A token-length distribution. `lognormal` takes the mean and stddev of the lengths themselves
 * (what a log summary shows), not of their logarithm. `empirical` files are read relative to the spec.
 */
export type LengthDist =
  | { dist: 'fixed'; value: number }
  | { dist: 'uniform'; min: number; max: number }
  /** vLLM's random dataset form: uniform on [mean·(1 − range_ratio), mean·(1 + range_ratio)]. */
  | { dist: 'uniform'; mean: number; range_ratio: number }
  | { dist: 'normal'; mean: number; stddev: number; min?: number; max?: number }
  | { dist: 'lognormal'; mean: number; stddev: number; min?: number; max?: number }
  | { dist: 'empirical'; values: number[]; weights?: number[] }
  | { dist: 'empirical'; file: string };

/** How the output length is forced: vLLM/SGLang `ignore_eos`, vLLM `min_tokens` = max_tokens, or not at all (max_tokens is only a cap). */
export const OUTPUT_CONTROLS = ['ignore_eos', 'min_tokens', 'none'] as const;
export type OutputControl = (typeof OUTPUT_CONTROLS)[number];

/** How synthetic prompts are sized for the target's tokenizer (src/workload/calibrate.ts). */
export type CalibrateMode = 'auto' | 'tokenize' | 'probe' | 'off';

export interface DatasetSpec {
  /** Relative to the spec file. */
  path: string;
  format: 'sharegpt' | 'jsonl';
  sample: 'with_replacement' | 'without_replacement';
  /** Bounds on estimated token counts; entries outside are not used. */
  filter?: { min_input_tokens?: number; max_input_tokens?: number; min_output_tokens?: number; max_output_tokens?: number };
}

/**
 * A time-varying rate (load.pattern); its times are offsets into the steady window, its rates
 * req/s. A spike multiplies load.rate; ramp and steps give their own rates.
 */
export type LoadPattern =
  | { kind: 'ramp'; from: number; to: number; over: string; slices?: number }
  | { kind: 'spike'; multiplier: number; at: string; for: string }
  | { kind: 'steps'; rates: number[]; each: string };

/** Stop the run early (load.abort): a sliding-window error rate, and/or over-saturation. */
export interface AbortSpec {
  max_error_rate?: number;
  window: string;
  over_saturation: boolean;
  /** An aborted run fails the gate instead of being inconclusive. */
  fail: boolean;
}

/** A benchmark spec as written in YAML, after the schema has filled defaults. Durations stay strings here. */
export interface Spec {
  name: string;
  target: {
    /** A base URL in the OpenAI SDKs' sense (`http://host:8000/v1`), or `sim` for the embedded simulator. */
    url: string;
    api: 'chat' | 'completions';
    /**
     * Absent for a real server when the spec names none: the run then uses the one model the
     * server lists (src/run/served-model.ts), and the result's spec carries it.
     */
    model?: string;
    headers: Record<string, string>;
    /** Name of the environment variable that holds the API key; the key itself never appears in a spec. */
    api_key_env?: string;
    request_timeout: string;
    ready_timeout: string;
    /** Simulator settings, used when url is `sim` (validated by src/sim). */
    sim: Record<string, unknown>;
    /** Where the server view is scraped (src/server); absent: the target's origin + /metrics; false: no server view. */
    metrics_url?: string | false;
    /** How often /metrics is read; absent: 1s. */
    metrics_interval?: string;
    /** Hosts besides the target's own that metrics_url may name; they receive the target's headers and key. */
    metrics_allowed_hosts?: string[];
  };
  workload: {
    seed: number;
    /** Absent with a dataset, whose prompts set the input lengths. */
    input_tokens?: LengthDist;
    output_tokens: LengthDist;
    output_control: OutputControl;
    calibrate: CalibrateMode;
    /** One system prompt of this many tokens shared by every request. */
    prefix?: { shared_tokens: number };
    /** G prefixes of N tokens each; request popularity follows Zipf(s) over the groups. */
    prefix_groups?: { groups: number; tokens: number; zipf_s: number };
    /** Prompts (and output lengths where the file has them) from a file instead of synthetic text. */
    dataset?: DatasetSpec;
    /** Multi-turn conversations: each turn resends the whole context (src/workload/sessions.ts). */
    sessions?: SessionsSpec;
    /** A production trace whose arrival times and lengths are the load (src/workload/trace.ts). */
    trace?: TraceSpec;
  };
  load: {
    mode: 'open' | 'closed';
    arrival: 'poisson' | 'constant' | 'gamma';
    /** Gamma shape: 1 is Poisson, < 1 burstier, > 1 smoother (vLLM's --burstiness). */
    burstiness: number;
    /** Requests per second (open loop). */
    rate: number;
    /** Fixed number of in-flight requests (closed loop). */
    concurrency: number;
    warmup: string;
    steady: string;
    cooldown: string;
    /** Open-loop safety cap; arrivals beyond it are reported as dropped. */
    max_in_flight: number;
    /** The longest SSE line or event a server may send, in bytes; unset: the client's default (src/client/bounds.ts). */
    max_event_bytes?: number;
    /** Independent runs (fresh seeds) merged into one result, with their spread. */
    replicates: number;
    /** Rate rises linearly from 0 over this long before the warmup (open loop); outside the window. */
    ramp_up?: string;
    pattern?: LoadPattern;
    /** A long steady window judged in this many equal segments, for drift. */
    soak?: { segments: number };
    abort?: AbortSpec;
  };
  slo: { ttft_ms: number; tpot_ms: number; e2e_ms: number };
  /** Regression and SLO rules; see src/spec/gate-schema.ts. */
  gate: GateSpec;
  /** A capacity sweep (loadgate sweep); absent in a single-point spec. See src/spec/sweep-schema.ts. */
  sweep?: SweepSpec;
  /** Fleet sizing from a sweep's capacity. */
  sizing?: SizingSpec;
}

/** What the engine runs: the spec with durations in milliseconds and the secret resolved. */
export interface ResolvedSpec {
  spec: Spec;
  /** sha256 of the canonical JSON of `spec` (secrets are never in it). */
  hash: string;
  /** Directory the spec's relative file paths (dataset, empirical lengths) are read from; absent: the working directory. */
  specDir?: string;
  /** Absent when the spec names no api_key_env. Never logged or written. */
  apiKey?: string;
  /** target.headers with `${VAR}` references filled from the environment. Never logged or written. */
  headers: Record<string, string>;
  requestTimeoutMs: number;
  readyTimeoutMs: number;
  warmupMs: number;
  steadyMs: number;
  cooldownMs: number;
  /** load.ramp_up in ms; absent: none. */
  rampUpMs?: number;
  /** load.pattern or load.soak with durations in ms; absent: a steady rate. */
  pattern?: ResolvedPattern;
  abort?: ResolvedAbort;
  /** target.metrics_interval in ms (1000 when absent). */
  metricsIntervalMs: number;
}

/** A pattern with its durations in ms (src/spec/pattern.ts); times are offsets into the steady window. */
export type ResolvedPattern =
  | { kind: 'ramp'; from: number; to: number; overMs: number; slices: number }
  | { kind: 'spike'; multiplier: number; atMs: number; forMs: number }
  | { kind: 'steps'; rates: number[]; eachMs: number }
  | { kind: 'soak'; segments: number };

export interface ResolvedAbort {
  maxErrorRate: number | null;
  windowMs: number;
  overSaturation: boolean;
  fail: boolean;
}

export interface SessionsSpec {
  /** Turns per conversation; absent with a ShareGPT dataset, whose conversations bring their own. */
  turns?: LengthDist;
  /** From the end of one turn's reply to the next turn's intended send time. */
  think_time: ThinkTime;
}

export interface TraceSpec {
  file: string;
  format: 'mooncake' | 'azure';
  /** Time scaling: offsets are divided by it. */
  speedup: number;
  /** Trace time skipped before the slice starts. */
  start: string;
  /** Trace time kept after `start`; absent: the rest of the trace. */
  duration?: string;
}
