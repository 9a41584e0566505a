import type { Static } from '../json-schema.js';
import type { LengthDist, specSchema } from './schema.js';
import type { ThinkTime } from './think-time.js';

export type { LengthDist, ThinkTime };

/** How the output length is forced: vLLM/SGLang `ignore_eos`, vLLM `min_tokens` = max_tokens, or not at all (max_tokens is only a cap). */
export const OUTPUT_CONTROLS = ['ignore_eos', 'min_tokens', 'none'] as const;
export type OutputControl = (typeof OUTPUT_CONTROLS)[number];

/**
 * A benchmark spec as written in YAML, after the schema has filled defaults: the Static of the
 * spec's schema (schema.ts), where each key is described. Durations stay strings here.
 */
export type Spec = Static<typeof specSchema>;

type Workload = Spec['workload'];
/** How synthetic prompts are sized for the target's tokenizer (src/workload/calibrate.ts). */
export type CalibrateMode = Workload['calibrate'];
export type DatasetSpec = NonNullable<Workload['dataset']>;
export type SessionsSpec = NonNullable<Workload['sessions']>;
export type TraceSpec = NonNullable<Workload['trace']>;
/** A time-varying rate (load.pattern); its times are offsets into the steady window, its rates req/s. */
export type LoadPattern = NonNullable<Spec['load']['pattern']>;
/** Stop the run early (load.abort): a sliding-window error rate, and/or over-saturation. */
export type AbortSpec = NonNullable<Spec['load']['abort']>;

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
