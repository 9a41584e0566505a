import { gateSchema } from './gate-schema.js';
import { MAX_EVENT_BYTES, MIN_EVENT_BYTES } from '../client/bounds.js';
import { Dict, OneOf, Type, type Static, type TObject, type TSchema } from '../json-schema.js';
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
import { Mapping, Section } from './mapping.js';
import { sizingSchema, sweepSchema } from './sweep-schema.js';
import { ThinkTimeSchema } from './think-time.js';
import { OUTPUT_CONTROLS } from './types.js';

/*
 * JSON Schema (draft-07, ajv v8) for a benchmark spec, written once with TypeBox: its Static
 * is the Spec type (types.ts), the spec as the engine reads it. The validator runs with
 * `useDefaults`, so every default below ends up in the resolved spec, and a key with a default
 * is present in the type (mapping.ts).
 *
 * Each `description` is written as the "expected …" half of an error message
 * (see messages.ts); schemas without one are described from their type or enum.
 * Length distributions select their shape with if/then on `dist` rather than
 * oneOf, so a mistake yields one error about the chosen shape, not one per branch.
 */

const positiveNumber = (options: { default?: number; description?: string } = {}) =>
  Type.Number({ exclusiveMinimum: 0, description: 'a number > 0', ...options });
/** A token count: capped, so validate refuses what a run could not build (limits.ts). */
const tokens = Type.Integer({
  minimum: 1,
  maximum: MAX_TOKENS_PER_REQUEST,
  description: `a positive integer of at most ${figure(MAX_TOKENS_PER_REQUEST)} tokens`,
});
const meanTokens = Type.Number({
  exclusiveMinimum: 0,
  maximum: MAX_TOKENS_PER_REQUEST,
  description: `a number > 0 and at most ${figure(MAX_TOKENS_PER_REQUEST)} tokens`,
});
/** `maximum` with a description of its own, for keys whose bound is a resource limit. */
const atMost = (max: number, fallback?: number) =>
  Type.Integer({
    minimum: 1,
    maximum: max,
    description: `an integer from 1 to ${figure(max)}`,
    ...(fallback === undefined ? {} : { default: fallback }),
  });
const duration = (fallback: string) => Type.String({ default: fallback, description: 'a duration such as 500ms, 30s, 5m, 1m30s' });
const sloMs = (fallback: number) => Type.Number({ exclusiveMinimum: 0, default: fallback, description: 'a number of milliseconds > 0' });
const model = Type.String({
  minLength: 1,
  maxLength: MAX_NAME_CHARS,
  description: 'the name of a model the server serves (omitted: the one model the server lists)',
});
const path = (what: string) =>
  Type.String({ minLength: 1, maxLength: MAX_PATH_CHARS, description: `the path of ${what}, relative to the spec` });

const stddev = Type.Number({ minimum: 0, description: 'a number ≥ 0' });
const { Optional } = Type;

/**
 * A mapping whose `tag` key selects one of several shapes (`dist` for lengths, `kind` for load
 * patterns). Its type is the union of the shapes; its schema selects the chosen shape with
 * if/then, so a mistake yields one error about that shape rather than one per branch. Where a
 * tag has two forms (uniform: min/max or mean/range_ratio; empirical: values or file), the
 * schema lists both forms' keys and requires what they share; resolve.ts checks that exactly
 * one form is complete.
 */
function tagged<F extends TObject>(tag: string, forms: F[], options: { description: string; default?: object }) {
  const tagOf = (f: F) => (f.properties[tag] as unknown as { const: string }).const;
  const names = [...new Set(forms.map(tagOf))];
  const shape = (name: string) => {
    const of = forms.filter((f) => tagOf(f) === name);
    const properties: Record<string, TSchema> = {};
    for (const f of of) for (const [k, v] of Object.entries(f.properties)) if (k !== tag) properties[k] = v;
    const required = Object.keys(properties).filter((k) => of.every((f) => (f.required ?? []).includes(k)));
    return { required, properties };
  };
  return Type.Unsafe<Static<F>>({
    type: 'object',
    ...options,
    required: [tag],
    properties: { [tag]: { enum: names } },
    allOf: names.map((name) => ({
      // `type` and `required` keep the if from passing vacuously on non-mappings or a missing tag.
      if: { type: 'object', required: [tag], properties: { [tag]: { const: name } } },
      then: {
        type: 'object',
        required: shape(name).required,
        properties: { [tag]: { const: name }, ...shape(name).properties },
        additionalProperties: false,
      },
    })),
  });
}

/**
 * A token-length distribution. `lognormal` takes the mean and stddev of the lengths themselves
 * (what a log summary shows), not of their logarithm. `empirical` files are read relative to the spec.
 */
const LENGTH_FORMS = [
  Type.Object({ dist: Type.Literal('fixed'), value: tokens }),
  Type.Object({ dist: Type.Literal('uniform'), min: tokens, max: tokens }),
  /** vLLM's random dataset form: uniform on [mean·(1 − range_ratio), mean·(1 + range_ratio)]. */
  Type.Object({
    dist: Type.Literal('uniform'),
    mean: meanTokens,
    range_ratio: Type.Number({ minimum: 0, exclusiveMaximum: 1, description: 'a number ≥ 0 and < 1' }),
  }),
  Type.Object({ dist: Type.Literal('normal'), mean: meanTokens, stddev, min: Optional(tokens), max: Optional(tokens) }),
  Type.Object({ dist: Type.Literal('lognormal'), mean: meanTokens, stddev, min: Optional(tokens), max: Optional(tokens) }),
  Type.Object({
    dist: Type.Literal('empirical'),
    values: Type.Array(tokens, {
      minItems: 1,
      description: `a non-empty list of positive integers of at most ${figure(MAX_TOKENS_PER_REQUEST)}`,
    }),
    weights: Optional(
      Type.Array(Type.Number({ minimum: 0, description: 'a number ≥ 0' }), { description: 'a list of numbers ≥ 0, one per value' }),
    ),
  }),
  Type.Object({ dist: Type.Literal('empirical'), file: path('a JSON, CSV or text file of lengths') }),
];
const DIST_NAMES = [...new Set(LENGTH_FORMS.map((f) => f.properties.dist.const))];

const lengthDist = (fallback?: number) =>
  tagged('dist', LENGTH_FORMS, {
    ...(fallback === undefined ? {} : { default: { dist: 'fixed', value: fallback } }),
    description: `a positive integer or a mapping with dist: ${DIST_NAMES.join(', ')}`,
  });
export type LengthDist = Static<ReturnType<typeof lengthDist>>;

const rate = Type.Number({ minimum: 0, description: 'a rate in req/s ≥ 0' });
const durationText = (d: string) => Type.String({ description: d });
/**
 * A time-varying rate (load.pattern); its times are offsets into the steady window, its rates
 * req/s. A spike multiplies load.rate; ramp and steps give their own rates.
 */
const PATTERN_FORMS = [
  Type.Object({
    kind: Type.Literal('ramp'),
    from: rate,
    to: rate,
    over: durationText('a duration such as 30s, 5m'),
    slices: Optional(Type.Integer({ minimum: 2, maximum: 100, description: 'an integer from 2 to 100 (steps the ramp is summarized in)' })),
  }),
  Type.Object({
    kind: Type.Literal('spike'),
    multiplier: Type.Number({ exclusiveMinimum: 0, description: 'a number > 0 (the spike rate is multiplier × load.rate)' }),
    at: durationText('a duration into the steady window, such as 20s'),
    for: durationText('a duration such as 10s'),
  }),
  Type.Object({
    kind: Type.Literal('steps'),
    rates: Type.Array(rate, { minItems: 1, description: 'a non-empty list of rates in req/s ≥ 0' }),
    each: durationText('a duration such as 30s'),
  }),
];

/** load.pattern: `kind` selects the shape, as `dist` does for lengths (one error about the chosen shape). */
const pattern = tagged('kind', PATTERN_FORMS, {
  description: `a mapping with kind: ${[...new Set(PATTERN_FORMS.map((f) => f.properties.kind.const))].join(', ')}`,
});

/** workload.sessions: multi-turn conversations (src/workload/sessions.ts). */
const sessionsSchema = Mapping(
  {
    /** Turns per conversation; absent with a ShareGPT dataset, whose conversations bring their own. */
    turns: Optional(lengthDist()),
    /** From the end of one turn's reply to the next turn's intended send time. */
    think_time: Type.Unsafe<Static<typeof ThinkTimeSchema>>({
      default: '0s',
      description: 'a duration such as 300ms, or a mapping with dist: uniform (min, max) or exponential (mean)',
      oneOf: ThinkTimeSchema.anyOf.map((s) => (s.type === 'object' ? { ...s, additionalProperties: false } : s)),
    }),
  },
  { description: 'a mapping with turns and optionally think_time' },
);

/** workload.trace: a production trace replayed as the open-loop schedule (src/workload/trace.ts). */
const traceSchema = Mapping(
  {
    file: path('a Mooncake JSONL or Azure CSV trace'),
    format: OneOf(['mooncake', 'azure']),
    /** Time scaling: offsets are divided by it. */
    speedup: positiveNumber({ default: 1, description: 'a number > 0 (2: the trace replayed twice as fast)' }),
    /** Trace time skipped before the slice starts. */
    start: Type.String({ default: '0s', description: 'a duration into the trace such as 0s, 10m' }),
    /** Trace time kept after `start`; absent: the rest of the trace. */
    duration: Optional(Type.String({ description: 'a duration of trace time such as 60s' })),
  },
  { description: 'a mapping with file, format and optionally speedup, start, duration' },
);

/** Model default when the target is the embedded simulator, which serves any model name. */
export const SIM_MODEL = 'loadgate-sim';

const target = Mapping(
  {
    /** A base URL in the OpenAI SDKs' sense (`http://host:8000/v1`), or `sim` for the embedded simulator. */
    url: Type.String({ maxLength: MAX_URL_CHARS, description: 'http(s)://host[:port]/v1 or "sim"' }),
    api: OneOf(['chat', 'completions'], { default: 'chat' }),
    /**
     * Absent for a real server when the spec names none: the run then uses the one model the
     * server lists (src/run/served-model.ts), and the result's spec carries it.
     */
    model: Optional(model),
    headers: Dict(Type.String({ maxLength: MAX_HEADER_VALUE_CHARS, description: 'a string (quote numbers)' }), { default: {} }),
    /** Name of the environment variable that holds the API key; the key itself never appears in a spec. */
    api_key_env: Optional(
      Type.String({
        pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$',
        description: 'the name of an environment variable, e.g. OPENAI_API_KEY',
      }),
    ),
    request_timeout: duration('60s'),
    ready_timeout: duration('60s'),
    /** Simulator settings, used when url is `sim` (validated by src/sim). */
    sim: Type.Unsafe<Record<string, unknown>>({ type: 'object', default: {} }),
    // The server view (src/server): no defaults here, so specs that do not set them keep their hash.
    /**
     * Where the server view is scraped (src/server); absent: the target's origin + /metrics;
     * false: no server view. Checked in resolve.ts, which words the error for a string-or-false key.
     */
    metrics_url: Optional(Type.Unsafe<string | false>({ description: "an http(s) URL of the target's Prometheus /metrics, or false" })),
    /** How often /metrics is read; absent: 1s. */
    metrics_interval: Optional(Type.String({ description: 'a duration such as 500ms or 1s' })),
    /** Hosts besides the target's own that metrics_url may name; they receive the target's headers and key. */
    metrics_allowed_hosts: Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'a list of hostnames' })),
  },
  {
    description: 'a mapping with at least url',
    // The simulator serves whatever model it is told; a real server's model, when the spec
    // names none, is the one it lists (src/run/served-model.ts).
    if: { properties: { url: { const: 'sim' } } },
    then: { properties: { model: { default: SIM_MODEL } } },
  },
);

const workload = Section({
  seed: Type.Integer({ default: 1, description: 'an integer' }),
  /** Absent with a dataset, whose prompts set the input lengths. */
  input_tokens: Optional(lengthDist(128)),
  output_tokens: lengthDist(128),
  /** How the output length is forced: vLLM/SGLang `ignore_eos`, vLLM `min_tokens` = max_tokens, or not at all (max_tokens is only a cap). */
  output_control: OneOf(OUTPUT_CONTROLS, { default: 'ignore_eos' }),
  // The older spelling of output_control (true: ignore_eos, false: none); resolve.ts folds it in.
  ignore_eos: Optional(Type.Boolean()),
  /** How synthetic prompts are sized for the target's tokenizer (src/workload/calibrate.ts). */
  calibrate: OneOf(['auto', 'tokenize', 'probe', 'off'], { default: 'auto' }),
  /** One system prompt of this many tokens shared by every request. */
  prefix: Optional(Mapping({ shared_tokens: tokens }, { description: 'a mapping with shared_tokens' })),
  /** G prefixes of N tokens each; request popularity follows Zipf(s) over the groups. */
  prefix_groups: Optional(
    Mapping(
      {
        groups: atMost(100_000),
        tokens,
        zipf_s: Type.Number({ minimum: 0, default: 1, description: 'a number ≥ 0 (0: every group equally popular)' }),
      },
      { description: 'a mapping with groups, tokens and optionally zipf_s' },
    ),
  ),
  /** Prompts (and output lengths where the file has them) from a file instead of synthetic text. */
  dataset: Optional(
    Mapping(
      {
        /** Relative to the spec file. */
        path: path('a ShareGPT or JSONL file'),
        format: OneOf(['sharegpt', 'jsonl']),
        sample: OneOf(['without_replacement', 'with_replacement'], { default: 'without_replacement' }),
        /** Bounds on estimated token counts; entries outside are not used. */
        filter: Optional(
          Mapping(
            {
              min_input_tokens: Optional(tokens),
              max_input_tokens: Optional(tokens),
              min_output_tokens: Optional(tokens),
              max_output_tokens: Optional(tokens),
            },
            { description: 'a mapping with min_input_tokens, max_input_tokens, min_output_tokens, max_output_tokens' },
          ),
        ),
      },
      { description: 'a mapping with path and format' },
    ),
  ),
  /** Multi-turn conversations: each turn resends the whole context (src/workload/sessions.ts). */
  sessions: Optional(sessionsSchema),
  /** A production trace whose arrival times and lengths are the load (src/workload/trace.ts). */
  trace: Optional(traceSchema),
});

/** Stop the run early (load.abort): a sliding-window error rate, and/or over-saturation. */
const abort = Mapping(
  {
    max_error_rate: Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'a fraction > 0 and ≤ 1' })),
    window: duration('10s'),
    over_saturation: Type.Boolean({ default: false }),
    /** An aborted run fails the gate instead of being inconclusive. */
    fail: Type.Boolean({ default: false }),
  },
  { description: 'a mapping with max_error_rate and/or over_saturation, window, fail' },
);

const load = Section({
  mode: OneOf(['open', 'closed'], { default: 'open' }),
  arrival: OneOf(['poisson', 'constant', 'gamma'], { default: 'poisson' }),
  /** Gamma shape: 1 is Poisson, < 1 burstier, > 1 smoother (vLLM's --burstiness). */
  burstiness: positiveNumber({ default: 1 }),
  /** Requests per second (open loop). */
  rate: positiveNumber({ default: 10 }),
  /** Fixed number of in-flight requests (closed loop). */
  concurrency: atMost(MAX_CONCURRENCY, 8),
  warmup: duration('5s'),
  steady: duration('30s'),
  cooldown: duration('2s'),
  /** Open-loop safety cap; arrivals beyond it are reported as dropped. */
  max_in_flight: atMost(MAX_IN_FLIGHT, 10000),
  // No default: a spec without it keeps its hash; the client's default is in client/bounds.ts.
  /** The longest SSE line or event a server may send, in bytes. */
  max_event_bytes: Optional(
    Type.Integer({
      minimum: MIN_EVENT_BYTES,
      maximum: MAX_EVENT_BYTES,
      description: `a number of bytes from ${figure(MIN_EVENT_BYTES)} to ${figure(MAX_EVENT_BYTES)} (the longest SSE line or event a server may send)`,
    }),
  ),
  /** Independent runs (fresh seeds) merged into one result, with their spread. */
  replicates: Type.Integer({ minimum: 1, maximum: 100, default: 1, description: 'an integer from 1 to 100' }),
  // No defaults for the pattern keys: a spec without them keeps its hash.
  /** Rate rises linearly from 0 over this long before the warmup (open loop); outside the window. */
  ramp_up: Optional(Type.String({ description: 'a duration such as 30s' })),
  pattern: Optional(pattern),
  /** A long steady window judged in this many equal segments, for drift. */
  soak: Optional(
    Mapping(
      { segments: Type.Integer({ minimum: 2, maximum: 100, description: 'an integer from 2 to 100' }) },
      { description: 'a mapping with segments' },
    ),
  ),
  abort: Optional(abort),
});

export const specSchema = Mapping(
  {
    name: Type.String({ minLength: 1, maxLength: MAX_NAME_CHARS, default: 'benchmark', description: 'a non-empty string' }),
    target,
    workload,
    load,
    slo: Section({ ttft_ms: sloMs(500), tpot_ms: sloMs(50), e2e_ms: sloMs(10000) }),
    /** Regression and SLO rules; see src/spec/gate-schema.ts. */
    gate: gateSchema,
    /** A capacity sweep (loadgate sweep); absent in a single-point spec. See src/spec/sweep-schema.ts. */
    sweep: Optional(sweepSchema),
    /** Fleet sizing from a sweep's capacity. */
    sizing: Optional(sizingSchema),
  },
  {
    $schema: 'http://json-schema.org/draft-07/schema#',
    description: 'a mapping with keys name, target, workload, load, slo, gate, sweep, sizing',
  },
);
