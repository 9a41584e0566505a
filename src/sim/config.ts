import type { SchemaObject } from 'ajv';
import { compileOnFirstUse } from '../spec/compile-on-use.js';
import { parse as parseYaml } from 'yaml';
import { bytes, MAX_SPEC_BYTES } from '../spec/limits.js';
import { issueFromErrors, show } from '../spec/messages.js';
import { SIM_PRESETS } from './compute-bound.js';
import type { JitterConfig } from './jitter.js';
import { jsonProblem, readFileCapped, ReadFileError } from '../spec/read-file.js';

/** Output length when the request does not force it (no `ignore_eos`); always capped by `max_tokens`. */
export type OutputLengths =
  { dist: 'geometric'; mean: number } | { dist: 'fixed'; value: number } | { dist: 'uniform'; min: number; max: number };

/** Engine-wide pauses: every `every_ms` (first one at `every_ms`) and/or at each `at_ms`, both from server start. */
export interface StallConfig {
  duration_ms: number;
  every_ms?: number;
  at_ms?: number[];
}

export interface SimConfig {
  /** engine: continuous-batching model; paced: fixed TTFT/ITL per request; fast: no timing at all. */
  mode: 'engine' | 'paced' | 'fast';
  model: string;
  seed: number;
  max_model_len: number;
  output_tokens: OutputLengths;
  /** /health answers 503 (and the API 503) until this long after listen. */
  startup_delay_ms: number;
  /** Shed with 429 when this many requests are already waiting; absent = never shed. */
  max_queue?: number;
  retry_after_s: number;
  /** Ground-truth records kept for /sim/requests (a ring of the last N). */
  ground_truth_size: number;
  /** Each record also lists the write time of every token (`token_times`): for benches of inter-token timing; memory grows with tokens. */
  record_token_times: boolean;

  // engine mode
  max_num_seqs: number;
  max_num_batched_tokens: number;
  kv_cache_tokens: number;
  block_size: number;
  enable_prefix_caching: boolean;
  prefill_ms_per_token: number;
  decode_base_ms: number;
  decode_ms_per_seq: number;
  /** Multiplies every compute time: 1.15 is "this build is 15 % slower". */
  slowdown: number;

  // paced mode
  ttft_ms: number;
  itl_ms: number;
  /** Concurrent requests served; absent = unlimited. Requests beyond it wait in a FIFO queue. */
  slots?: number;

  // faults (each request draws at most one of the first five, so their rates add up to ≤ 1)
  error_rate: number;
  error_statuses: number[];
  stream_error_rate: number;
  truncate_rate: number;
  malformed_rate: number;
  reset_rate: number;
  header_delay_rate: number;
  header_delay_ms: number;
  stall?: StallConfig;
  /** Every compute time grows by per_minute × minutes since listen (src/sim/drift.ts): a slowdown over the run. */
  drift?: { per_minute: number };
  /** From this many ms after listen, every request fails with error_statuses[0]: a server that breaks mid-run. */
  fail_from_ms?: number;
  /** Seeded noise on the engine's compute times (src/sim/jitter.ts); absent = none. */
  jitter?: JitterConfig;
  /** Engine keys to start from (src/sim/compute-bound.ts: `compute-bound`); the config's own keys override them. */
  preset?: string;
}

/**
 * Defaults resemble Llama-3-8B in bf16 under vLLM on one 80 GB H100: about 52 GB of
 * KV cache at 128 KiB per token (~400k tokens), a 6 ms weight-bound decode step
 * growing by 0.06 ms per sequence, and prefill at ~20k tokens/s.
 */
export const SIM_DEFAULTS: SimConfig = {
  mode: 'engine',
  model: 'sim-8b',
  seed: 1,
  max_model_len: 8192,
  output_tokens: { dist: 'geometric', mean: 256 },
  startup_delay_ms: 0,
  retry_after_s: 1,
  ground_truth_size: 10000,
  record_token_times: false,
  max_num_seqs: 256,
  max_num_batched_tokens: 8192,
  kv_cache_tokens: 400000,
  block_size: 16,
  enable_prefix_caching: true,
  prefill_ms_per_token: 0.05,
  decode_base_ms: 6,
  decode_ms_per_seq: 0.06,
  slowdown: 1,
  ttft_ms: 50,
  itl_ms: 10,
  error_rate: 0,
  error_statuses: [500, 502, 503],
  stream_error_rate: 0,
  truncate_rate: 0,
  malformed_rate: 0,
  reset_rate: 0,
  header_delay_rate: 0,
  header_delay_ms: 0,
};

const int = (minimum: number) => ({ type: 'integer', minimum });
const nonNegative = { type: 'number', minimum: 0 };
const positive = { type: 'number', exclusiveMinimum: 0 };
const rate = { type: 'number', minimum: 0, maximum: 1 };

/** JSON Schema (draft-07) of a complete SimConfig; validation runs on the input merged over SIM_DEFAULTS. */
export const SIM_CONFIG_SCHEMA: SchemaObject = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(SIM_DEFAULTS),
  properties: {
    mode: { enum: ['engine', 'paced', 'fast'] },
    model: { type: 'string', minLength: 1 },
    seed: { type: 'integer' },
    max_model_len: int(1),
    output_tokens: {
      type: 'object',
      discriminator: { propertyName: 'dist' },
      required: ['dist'],
      oneOf: [
        {
          properties: { dist: { const: 'geometric' }, mean: { type: 'number', minimum: 1 } },
          required: ['mean'],
          additionalProperties: false,
        },
        { properties: { dist: { const: 'fixed' }, value: int(1) }, required: ['value'], additionalProperties: false },
        { properties: { dist: { const: 'uniform' }, min: int(1), max: int(1) }, required: ['min', 'max'], additionalProperties: false },
      ],
    },
    startup_delay_ms: nonNegative,
    max_queue: int(1),
    retry_after_s: int(0),
    ground_truth_size: int(1),
    record_token_times: { type: 'boolean' },
    max_num_seqs: int(1),
    max_num_batched_tokens: int(1),
    kv_cache_tokens: int(1),
    block_size: int(1),
    enable_prefix_caching: { type: 'boolean' },
    prefill_ms_per_token: nonNegative,
    decode_base_ms: nonNegative,
    decode_ms_per_seq: nonNegative,
    slowdown: positive,
    ttft_ms: nonNegative,
    itl_ms: nonNegative,
    slots: int(1),
    error_rate: rate,
    error_statuses: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 400, maximum: 599 } },
    stream_error_rate: rate,
    truncate_rate: rate,
    malformed_rate: rate,
    reset_rate: rate,
    header_delay_rate: rate,
    header_delay_ms: nonNegative,
    stall: {
      type: 'object',
      additionalProperties: false,
      required: ['duration_ms'],
      properties: {
        duration_ms: positive,
        every_ms: positive,
        at_ms: { type: 'array', items: nonNegative },
      },
    },
    drift: { type: 'object', additionalProperties: false, required: ['per_minute'], properties: { per_minute: nonNegative } },
    fail_from_ms: nonNegative,
    jitter: {
      type: 'object',
      additionalProperties: false,
      required: ['step_cv', 'request_cv', 'run_cv'],
      properties: { step_cv: nonNegative, request_cv: nonNegative, run_cv: nonNegative },
    },
    preset: { enum: Object.keys(SIM_PRESETS) },
  },
};

/** One line, naming the field: `sim config: max_num_seqs is -1; expected an integer ≥ 1`, worded by spec/messages.ts as spec errors are. */
export class SimConfigError extends Error {
  constructor(detail: string) {
    super(`sim config: ${detail}`);
    this.name = 'SimConfigError';
  }
}

// `verbose` gives issueFromErrors the failing data and schema.
const check = compileOnFirstUse('sim-config', () => ({
  options: { discriminator: true, verbose: true, strict: false },
  schema: SIM_CONFIG_SCHEMA,
}));

/** Fills defaults and validates; throws SimConfigError on the first problem. */
export function validateSimConfig(input: unknown): SimConfig {
  if (input === null || input === undefined) input = {};
  if (typeof input !== 'object' || Array.isArray(input)) throw new SimConfigError(`is ${show(input)}; expected a mapping`);
  const preset = (input as { preset?: unknown }).preset;
  const base = typeof preset === 'string' && preset in SIM_PRESETS ? SIM_PRESETS[preset]() : {};
  const config = { ...SIM_DEFAULTS, ...base, ...(input as object) };
  if (!check()(config)) throw new SimConfigError(issueFromErrors(check().errors!, config).message);
  crossCheck(config);
  return config;
}

/** Rules that span fields, which the schema cannot say. */
function crossCheck(c: SimConfig): void {
  const exclusive = ['error_rate', 'stream_error_rate', 'truncate_rate', 'malformed_rate', 'reset_rate'] as const;
  const sum = exclusive.reduce((s, k) => s + c[k], 0);
  if (sum > 1 + 1e-9) throw new SimConfigError(`${exclusive.join(' + ')} is ${round(sum)}; expected ≤ 1`);
  if (c.kv_cache_tokens < c.max_model_len) {
    throw new SimConfigError(
      `kv_cache_tokens is ${c.kv_cache_tokens}; expected ≥ max_model_len (${c.max_model_len}) so any admissible request fits`,
    );
  }
  if (c.output_tokens.dist === 'uniform' && c.output_tokens.min > c.output_tokens.max) {
    throw new SimConfigError(`output_tokens.min is ${c.output_tokens.min}; expected ≤ output_tokens.max (${c.output_tokens.max})`);
  }
  if (c.stall) {
    const { duration_ms, every_ms, at_ms } = c.stall;
    if (every_ms === undefined && !at_ms?.length) throw new SimConfigError('stall has neither every_ms nor at_ms; expected at least one');
    if (every_ms !== undefined && every_ms <= duration_ms) {
      throw new SimConfigError(`stall.every_ms is ${every_ms}; expected > stall.duration_ms (${duration_ms})`);
    }
  }
}

/** Reads a YAML or JSON file (YAML is a superset) into an unvalidated object. */
export function readSimConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileCapped(path, MAX_SPEC_BYTES);
  } catch (err) {
    if (!(err instanceof ReadFileError)) throw err;
    throw new SimConfigError(
      `${path}: ${err.reason}; expected a YAML or JSON simulator config${err.tooLarge ? ` of at most ${bytes(MAX_SPEC_BYTES)}` : ''}`,
    );
  }
  try {
    return parseYaml(text);
  } catch (err) {
    // yaml's message may go on with an excerpt of the file: only its first line, which says where.
    throw new SimConfigError(`${path} is not valid YAML or JSON: ${(err as Error).message.split('\n')[0].replace(/:$/, '')}`);
  }
}

/** Parses `--config-json`. */
export function parseSimConfigJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SimConfigError(`--config-json is not valid JSON (${jsonProblem(err, text)})`);
  }
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
