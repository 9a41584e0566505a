import type { SchemaObject } from 'ajv';

/*
 * JSON Schema (draft-07, ajv v8) for a benchmark spec. The validator runs with
 * `useDefaults`, so every default below ends up in the resolved spec.
 *
 * Each `description` is written as the "expected …" half of an error message
 * (see messages.ts); schemas without one are described from their type or enum.
 * Length distributions select their shape with if/then on `dist` rather than
 * oneOf, so a mistake yields one error about the chosen shape, not one per branch.
 */

const positiveInteger = { type: 'integer', minimum: 1, description: 'a positive integer' };
const positiveNumber = { type: 'number', exclusiveMinimum: 0, description: 'a number > 0' };
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
const model = { type: 'string', minLength: 1, description: 'the model name the server serves (required unless url is sim)' };

/** Each distribution's own keys; `dist` selects one. */
const LENGTH_SHAPES: Record<string, { required: string[]; properties: Record<string, object> }> = {
  fixed: { required: ['value'], properties: { value: positiveInteger } },
  uniform: { required: ['min', 'max'], properties: { min: positiveInteger, max: positiveInteger } },
  normal: {
    required: ['mean', 'stddev'],
    properties: {
      mean: positiveNumber,
      stddev: { type: 'number', minimum: 0, description: 'a number ≥ 0' },
      min: positiveInteger,
      max: positiveInteger,
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

/** An optional top-level section: omitted, it is `{}` and then filled with its own defaults. */
const section = (properties: Record<string, object>) => ({
  type: 'object',
  default: {},
  properties,
  additionalProperties: false,
});

/** Model default when the target is the embedded simulator, which serves any model name. */
export const SIM_MODEL = 'loadgate-sim';

export const specSchema: SchemaObject = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  description: 'a mapping with keys name, target, workload, load, slo',
  required: ['target'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, default: 'benchmark', description: 'a non-empty string' },
    target: {
      type: 'object',
      description: 'a mapping with at least url',
      required: ['url'],
      additionalProperties: false,
      properties: {
        url: { type: 'string', description: 'http(s)://host[:port]/v1 or "sim"' },
        api: { enum: ['chat', 'completions'], default: 'chat' },
        model,
        headers: {
          type: 'object',
          default: {},
          additionalProperties: { type: 'string', description: 'a string (quote numbers)' },
        },
        api_key_env: {
          type: 'string',
          pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
          description: 'the name of an environment variable, e.g. OPENAI_API_KEY',
        },
        request_timeout: duration('60s'),
        ready_timeout: duration('60s'),
        sim: { type: 'object', default: {} },
      },
      // The simulator serves any model name; a real server must be told which model to run.
      // `else` repeats the model schema so a "missing" message can describe it.
      if: { properties: { url: { const: 'sim' } } },
      then: { properties: { model: { default: SIM_MODEL } } },
      else: { required: ['model'], properties: { model } },
    },
    workload: section({
      seed: { type: 'integer', default: 1, description: 'an integer' },
      input_tokens: lengthDist(128),
      output_tokens: lengthDist(128),
      ignore_eos: { type: 'boolean', default: true },
    }),
    load: section({
      mode: { enum: ['open', 'closed'], default: 'open' },
      arrival: { enum: ['poisson', 'constant', 'gamma'], default: 'poisson' },
      burstiness: { ...positiveNumber, default: 1 },
      rate: { ...positiveNumber, default: 10 },
      concurrency: { type: 'integer', minimum: 1, default: 8, description: 'an integer ≥ 1' },
      warmup: duration('5s'),
      steady: duration('30s'),
      cooldown: duration('2s'),
      max_in_flight: { type: 'integer', minimum: 1, default: 10000, description: 'an integer ≥ 1' },
    }),
    slo: section({ ttft_ms: sloMs(500), tpot_ms: sloMs(50), e2e_ms: sloMs(10000) }),
  },
};
