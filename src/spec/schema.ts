import type { SchemaObject } from 'ajv';
import { gateSchema } from './gate-schema.js';
import { MAX_EVENT_BYTES, MIN_EVENT_BYTES } from '../client/bounds.js';
import {
  figure,
  MAX_CONCURRENCY,
  MAX_HEADER_VALUE_CHARS,
  MAX_IN_FLIGHT,
  MAX_NAME_CHARS,
  MAX_PATH_CHARS,
  MAX_TOKENS_PER_REQUEST,
  MAX_URL_CHARS,
} from './limits.js';
import { sizingSchema, sweepSchema } from './sweep-schema.js';
import { ThinkTimeSchema } from './think-time.js';
import { OUTPUT_CONTROLS } from './types.js';

/*
 * JSON Schema (draft-07, ajv v8) for a benchmark spec. The validator runs with
 * `useDefaults`, so every default below ends up in the resolved spec.
 *
 * Each `description` is written as the "expected …" half of an error message
 * (see messages.ts); schemas without one are described from their type or enum.
 * Length distributions select their shape with if/then on `dist` rather than
 * oneOf, so a mistake yields one error about the chosen shape, not one per branch.
 */

const positiveNumber = { type: 'number', exclusiveMinimum: 0, description: 'a number > 0' };
/** A token count: capped, so validate refuses what a run could not build (limits.ts). */
const tokens = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_TOKENS_PER_REQUEST,
  description: `a positive integer of at most ${figure(MAX_TOKENS_PER_REQUEST)} tokens`,
};
const meanTokens = {
  type: 'number',
  exclusiveMinimum: 0,
  maximum: MAX_TOKENS_PER_REQUEST,
  description: `a number > 0 and at most ${figure(MAX_TOKENS_PER_REQUEST)} tokens`,
};
/** `maximum` with a description of its own, for keys whose bound is a resource limit. */
const atMost = (max: number) => ({ type: 'integer', minimum: 1, maximum: max, description: `an integer from 1 to ${figure(max)}` });
const duration = (fallback: string) => ({
  type: 'string',
  default: fallback,
  description: 'a duration such as 500ms, 30s, 5m, 1m30s',
});
const sloMs = (fallback: number) => ({
  type: 'number',
  exclusiveMinimum: 0,
  default: fallback,
  description: 'a number of milliseconds > 0',
});
const model = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_NAME_CHARS,
  description: 'the name of a model the server serves (omitted: the one model the server lists)',
};
const path = (what: string) => ({
  type: 'string',
  minLength: 1,
  maxLength: MAX_PATH_CHARS,
  description: `the path of ${what}, relative to the spec`,
});

const stddev = { type: 'number', minimum: 0, description: 'a number ≥ 0' };

/**
 * Each distribution's own keys; `dist` selects one. Where a distribution has two forms
 * (uniform: min/max or mean/range_ratio; empirical: values or file), both forms' keys are
 * listed and resolve.ts checks that exactly one form is complete.
 */
const LENGTH_SHAPES: Record<string, { required: string[]; properties: Record<string, object> }> = {
  fixed: { required: ['value'], properties: { value: tokens } },
  uniform: {
    required: [],
    properties: {
      min: tokens,
      max: tokens,
      mean: meanTokens,
      range_ratio: { type: 'number', minimum: 0, exclusiveMaximum: 1, description: 'a number ≥ 0 and < 1' },
    },
  },
  normal: { required: ['mean', 'stddev'], properties: { mean: meanTokens, stddev, min: tokens, max: tokens } },
  lognormal: { required: ['mean', 'stddev'], properties: { mean: meanTokens, stddev, min: tokens, max: tokens } },
  empirical: {
    required: [],
    properties: {
      values: {
        type: 'array',
        minItems: 1,
        items: tokens,
        description: `a non-empty list of positive integers of at most ${figure(MAX_TOKENS_PER_REQUEST)}`,
      },
      weights: {
        type: 'array',
        items: { type: 'number', minimum: 0, description: 'a number ≥ 0' },
        description: 'a list of numbers ≥ 0, one per value',
      },
      file: path('a JSON, CSV or text file of lengths'),
    },
  },
};
const DIST_NAMES = Object.keys(LENGTH_SHAPES);

const lengthDist = (fallback: number) => ({
  type: 'object',
  default: { dist: 'fixed', value: fallback },
  description: `a positive integer or a mapping with dist: ${DIST_NAMES.join(', ')}`,
  required: ['dist'],
  properties: { dist: { enum: DIST_NAMES } },
  allOf: Object.entries(LENGTH_SHAPES).map(([name, shape]) => ({
    // `type` and `required` keep the if from passing vacuously on non-mappings or a missing dist.
    if: { type: 'object', required: ['dist'], properties: { dist: { const: name } } },
    then: {
      type: 'object',
      required: shape.required,
      properties: { dist: { const: name }, ...shape.properties },
      additionalProperties: false,
    },
  })),
});

const rate = { type: 'number', minimum: 0, description: 'a rate in req/s ≥ 0' };
const durationText = (d: string) => ({ type: 'string', description: d });
const PATTERN_SHAPES: Record<string, { required: string[]; properties: Record<string, object> }> = {
  ramp: {
    required: ['from', 'to', 'over'],
    properties: {
      from: rate,
      to: rate,
      over: durationText('a duration such as 30s, 5m'),
      slices: { type: 'integer', minimum: 2, maximum: 100, description: 'an integer from 2 to 100 (steps the ramp is summarized in)' },
    },
  },
  spike: {
    required: ['multiplier', 'at', 'for'],
    properties: {
      multiplier: { type: 'number', exclusiveMinimum: 0, description: 'a number > 0 (the spike rate is multiplier × load.rate)' },
      at: durationText('a duration into the steady window, such as 20s'),
      for: durationText('a duration such as 10s'),
    },
  },
  steps: {
    required: ['rates', 'each'],
    properties: {
      rates: { type: 'array', minItems: 1, items: rate, description: 'a non-empty list of rates in req/s ≥ 0' },
      each: durationText('a duration such as 30s'),
    },
  },
};
const PATTERN_KINDS = Object.keys(PATTERN_SHAPES);

/** load.pattern: `kind` selects the shape, as `dist` does for lengths (one error about the chosen shape). */
const pattern = {
  type: 'object',
  description: `a mapping with kind: ${PATTERN_KINDS.join(', ')}`,
  required: ['kind'],
  properties: { kind: { enum: PATTERN_KINDS } },
  allOf: Object.entries(PATTERN_SHAPES).map(([name, shape]) => ({
    if: { type: 'object', required: ['kind'], properties: { kind: { const: name } } },
    then: {
      type: 'object',
      required: shape.required,
      properties: { kind: { const: name }, ...shape.properties },
      additionalProperties: false,
    },
  })),
};

/** An optional top-level section: omitted, it is `{}` and then filled with its own defaults. */
const section = (properties: Record<string, object>) => ({
  type: 'object',
  default: {},
  properties,
  additionalProperties: false,
});

function withoutDefault<T extends { default?: unknown }>(schema: T): Omit<T, 'default'> {
  const copy: Partial<T> = { ...schema };
  delete copy.default;
  return copy as Omit<T, 'default'>;
}

/** workload.sessions: multi-turn conversations (src/workload/sessions.ts). */
const sessionsSchema = {
  type: 'object',
  description: 'a mapping with turns and optionally think_time',
  additionalProperties: false,
  properties: {
    turns: withoutDefault(lengthDist(1)),
    think_time: {
      default: '0s',
      description: 'a duration such as 300ms, or a mapping with dist: uniform (min, max) or exponential (mean)',
      oneOf: ThinkTimeSchema.anyOf.map((s) => (s.type === 'object' ? { ...s, additionalProperties: false } : s)),
    },
  },
};

/** workload.trace: a production trace replayed as the open-loop schedule (src/workload/trace.ts). */
const traceSchema = {
  type: 'object',
  description: 'a mapping with file, format and optionally speedup, start, duration',
  required: ['file', 'format'],
  additionalProperties: false,
  properties: {
    file: path('a Mooncake JSONL or Azure CSV trace'),
    format: { enum: ['mooncake', 'azure'] },
    speedup: { ...positiveNumber, default: 1, description: 'a number > 0 (2: the trace replayed twice as fast)' },
    start: { type: 'string', default: '0s', description: 'a duration into the trace such as 0s, 10m' },
    duration: { type: 'string', description: 'a duration of trace time such as 60s' },
  },
};

/** Model default when the target is the embedded simulator, which serves any model name. */
export const SIM_MODEL = 'loadgate-sim';

export const specSchema: SchemaObject = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  description: 'a mapping with keys name, target, workload, load, slo, gate, sweep, sizing',
  required: ['target'],
  additionalProperties: false,
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_NAME_CHARS,
      default: 'benchmark',
      description: 'a non-empty string',
    },
    target: {
      type: 'object',
      description: 'a mapping with at least url',
      required: ['url'],
      additionalProperties: false,
      properties: {
        url: { type: 'string', maxLength: MAX_URL_CHARS, description: 'http(s)://host[:port]/v1 or "sim"' },
        api: { enum: ['chat', 'completions'], default: 'chat' },
        model,
        headers: {
          type: 'object',
          default: {},
          additionalProperties: {
            type: 'string',
            maxLength: MAX_HEADER_VALUE_CHARS,
            description: 'a string (quote numbers)',
          },
        },
        api_key_env: {
          type: 'string',
          pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$',
          description: 'the name of an environment variable, e.g. OPENAI_API_KEY',
        },
        request_timeout: duration('60s'),
        ready_timeout: duration('60s'),
        sim: { type: 'object', default: {} },
        // The server view (src/server): no defaults here, so specs that do not set them keep their hash.
        // Typed in resolve.ts, which words the error for a string-or-false key.
        metrics_url: { description: "an http(s) URL of the target's Prometheus /metrics, or false" },
        metrics_interval: { type: 'string', description: 'a duration such as 500ms or 1s' },
        metrics_allowed_hosts: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'a list of hostnames' },
      },
      // The simulator serves whatever model it is told; a real server's model, when the spec
      // names none, is the one it lists (src/run/served-model.ts).
      if: { properties: { url: { const: 'sim' } } },
      then: { properties: { model: { default: SIM_MODEL } } },
    },
    workload: section({
      seed: { type: 'integer', default: 1, description: 'an integer' },
      input_tokens: lengthDist(128),
      output_tokens: lengthDist(128),
      output_control: { enum: [...OUTPUT_CONTROLS], default: 'ignore_eos' },
      // The older spelling of output_control (true: ignore_eos, false: none); resolve.ts folds it in.
      ignore_eos: { type: 'boolean' },
      calibrate: { enum: ['auto', 'tokenize', 'probe', 'off'], default: 'auto' },
      prefix: {
        type: 'object',
        description: 'a mapping with shared_tokens',
        required: ['shared_tokens'],
        additionalProperties: false,
        properties: { shared_tokens: tokens },
      },
      prefix_groups: {
        type: 'object',
        description: 'a mapping with groups, tokens and optionally zipf_s',
        required: ['groups', 'tokens'],
        additionalProperties: false,
        properties: {
          groups: atMost(100_000),
          tokens,
          zipf_s: { type: 'number', minimum: 0, default: 1, description: 'a number ≥ 0 (0: every group equally popular)' },
        },
      },
      dataset: {
        type: 'object',
        description: 'a mapping with path and format',
        required: ['path', 'format'],
        additionalProperties: false,
        properties: {
          path: path('a ShareGPT or JSONL file'),
          format: { enum: ['sharegpt', 'jsonl'] },
          sample: { enum: ['without_replacement', 'with_replacement'], default: 'without_replacement' },
          filter: {
            type: 'object',
            description: 'a mapping with min_input_tokens, max_input_tokens, min_output_tokens, max_output_tokens',
            additionalProperties: false,
            properties: {
              min_input_tokens: tokens,
              max_input_tokens: tokens,
              min_output_tokens: tokens,
              max_output_tokens: tokens,
            },
          },
        },
      },
      sessions: sessionsSchema,
      trace: traceSchema,
    }),
    load: section({
      mode: { enum: ['open', 'closed'], default: 'open' },
      arrival: { enum: ['poisson', 'constant', 'gamma'], default: 'poisson' },
      burstiness: { ...positiveNumber, default: 1 },
      rate: { ...positiveNumber, default: 10 },
      concurrency: { ...atMost(MAX_CONCURRENCY), default: 8 },
      warmup: duration('5s'),
      steady: duration('30s'),
      cooldown: duration('2s'),
      max_in_flight: { ...atMost(MAX_IN_FLIGHT), default: 10000 },
      // No default: a spec without it keeps its hash; the client's default is in client/bounds.ts.
      max_event_bytes: {
        type: 'integer',
        minimum: MIN_EVENT_BYTES,
        maximum: MAX_EVENT_BYTES,
        description: `a number of bytes from ${figure(MIN_EVENT_BYTES)} to ${figure(MAX_EVENT_BYTES)} (the longest SSE line or event a server may send)`,
      },
      replicates: { type: 'integer', minimum: 1, maximum: 100, default: 1, description: 'an integer from 1 to 100' },
      // No defaults for the pattern keys: a spec without them keeps its hash.
      ramp_up: { type: 'string', description: 'a duration such as 30s' },
      pattern,
      soak: {
        type: 'object',
        description: 'a mapping with segments',
        required: ['segments'],
        additionalProperties: false,
        properties: { segments: { type: 'integer', minimum: 2, maximum: 100, description: 'an integer from 2 to 100' } },
      },
      abort: {
        type: 'object',
        description: 'a mapping with max_error_rate and/or over_saturation, window, fail',
        additionalProperties: false,
        properties: {
          max_error_rate: { type: 'number', exclusiveMinimum: 0, maximum: 1, description: 'a fraction > 0 and ≤ 1' },
          window: duration('10s'),
          over_saturation: { type: 'boolean', default: false },
          fail: { type: 'boolean', default: false },
        },
      },
    }),
    slo: section({ ttft_ms: sloMs(500), tpot_ms: sloMs(50), e2e_ms: sloMs(10000) }),
    gate: gateSchema,
    sweep: sweepSchema,
    sizing: sizingSchema,
  },
};
