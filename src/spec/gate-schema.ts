import { compileOnFirstUse } from './compile-on-use.js';
import { Type, type Static, type TNumber, type TObject, type TOptional, type TProperties, type TSchema } from '../json-schema.js';
import { GATE_METRICS, type LatencyKey } from '../metrics/definitions.js';
import { PERCENTILES, type PercentileKey } from '../metrics/histogram.js';
import { GENERATOR_LIMIT_KEYS, type GeneratorLimits } from './generator-limits.js';
import { Mapping } from './mapping.js';

/*
 * The spec's `gate` section: which changes against the baseline count as regressions,
 * which absolute SLOs every run must meet, and how sure the noise test must be.
 * Every rule is optional; the defaults below apply to whatever is left out.
 *
 *   gate:
 *     latency:    { ttft_p95: { max_increase_pct: 10 }, … }   # vs baseline; floor: what the runs resolve, or max_increase_ms
 *     throughput: { output_tokens_per_s: { max_decrease_pct: 5 } }                  # vs baseline
 *     error_rate: { max_increase_pp: 1 }                                             # vs baseline
 *     slo:        { ttft_p95: { max_ms: 500 }, http_5xx_rate: { max: 0.01 }, … }     # absolute
 *     confidence: 0.95
 *     validity:   { max_schedule_lag_p99_ms: 5, … }   # explicit overrides; defaults in result/validity.ts
 *     max_timestamp_error_share: 0.25   # per-rule timing validity (gate/timing-validity.ts)
 *     max_cv: 0.1                       # between-run CV above which the environment is unstable
 *     calibration: calibration.json     # between-run CVs from loadgate calibrate
 *     noise: { segments: true, between_run: true, assumed_cv: 0.1 }
 *
 * Each rule also takes `warn_only` (report, never fail the verdict) and `enabled`.
 */

/** Stems of the latency rule keys, from the metric table (src/metrics/definitions.ts). */
export const LATENCY_METRICS = GATE_METRICS.map((m) => m.gate);
export const PERCENTILE_KEYS = PERCENTILES.map(([key]) => key);
export const THROUGHPUT_KEYS = ['output_tokens_per_s', 'requests_per_s', 'goodput_per_s'] as const;

export type { LatencyKey, PercentileKey };
export type ThroughputKey = (typeof THROUGHPUT_KEYS)[number];

/**
 * The fixed floors the default rules had before they were derived from the runs; a soak's drift
 * (first vs last segment of one run) still uses them when its rule sets no max_increase_ms.
 */
export const FIXED_FLOOR_MS: Partial<Record<LatencyKey, number>> = { ttft_p95: 20, tpot_p50: 2, tpot_p95: 2, itl_p99: 5, e2e_p95: 50 };

/**
 * The between-run CV assumed for latency percentiles when neither side's replicates nor a
 * calibration file measured one. An engine drifts from run to run (its caches, clocks, placement,
 * the machine beside it), and queueing amplifies a drift in speed in the loaded percentiles; two
 * single runs then differ by about √2 times their CV, which the bootstrap of each run's histogram
 * cannot see. The engines measured for docs/benchmarks.md spread their judged percentiles by
 * about 10 % or more between fresh runs: llama.cpp on the CPU 10–11 % (TPOT and E2E; its TTFT p95
 * more), the compute-bound simulator preset with a 5 % speed factor 11–13 % (queueing at half of
 * saturation amplifies the factor). Assuming 10 %, a 10 % rule fails when the rise clears
 * 10 % + z·√2·10 % ≈ 33 % (z = 1.645) plus the sampling noise: in 1,455 pairings of single A/A
 * runs of that preset 1.0 % failed, while a 30 % slowdown of the engine, which raises its loaded
 * percentiles by 55–110 %, failed 95 % of single-run pairs. A pure +30 % rise of a percentile is
 * below that bound: a calibration or replicates that measure a smaller spread bring it within
 * reach (each rule states the rise it would have caught).
 */
export const ASSUMED_BETWEEN_RUN_CV = 0.1;

/** Default rules' max_increase_pct; their absolute floor is what the runs resolve (no max_increase_ms). */
const LATENCY_DEFAULTS: Partial<Record<LatencyKey, number>> = { ttft_p95: 10, tpot_p50: 10, tpot_p95: 10, itl_p99: 15, e2e_p95: 10 };

const LATENCY_KEY = `(${LATENCY_METRICS.join('|')})_(${PERCENTILE_KEYS.join('|')})`;

const orDefault = (value?: number) => (value === undefined ? {} : { default: value });
const nonNegative = (fallback?: number) => Type.Number({ minimum: 0, description: 'a number ≥ 0', ...orDefault(fallback) });
const fraction = (fallback?: number) =>
  Type.Number({ minimum: 0, maximum: 1, description: 'a fraction between 0 and 1', ...orDefault(fallback) });
const { Optional } = Type;

const flags = {
  /** Report a violation as a warning; it never turns the verdict to fail. */
  warn_only: Type.Boolean({ default: false, description: 'true or false' }),
  enabled: Type.Boolean({ default: true, description: 'true or false' }),
};

/** A rule mapping: its own keys and the flags; `fallback` is the whole rule's default ({} lets the inner defaults fill it). */
function rule<P extends TProperties>(props: P, fallback?: object) {
  return Mapping(
    { ...props, ...flags },
    {
      description: `a mapping with ${[...Object.keys(props), 'warn_only', 'enabled'].join(', ')}`,
      ...(fallback === undefined ? {} : { default: fallback }),
    },
  );
}

const keyNames = (pattern: string, what: string) => ({
  type: 'string',
  pattern: `^${pattern}$`,
  description: `${what} named <metric>_<percentile>, e.g. ttft_p95 (metrics ${LATENCY_METRICS.join(', ')}; percentiles ${PERCENTILE_KEYS.join(', ')})`,
});

/**
 * A regression needs both: a rise above max_increase_pct of the baseline AND above an absolute
 * floor — max_increase_ms when given, else what the two runs can resolve (src/gate/floors.ts:
 * 4 × the larger timestamp error bound plus the histogram's resolution). This is a rule the spec
 * adds under a <metric>_<percentile> key; the default rules have max_increase_pct filled.
 */
const latencyIncrease = rule({ max_increase_pct: nonNegative(), max_increase_ms: Optional(nonNegative()) });
const latencyIncreaseDefault = (pct: number) => rule({ max_increase_pct: nonNegative(pct), max_increase_ms: Optional(nonNegative()) }, {});
/** Absolute latency limit: the ttft_p95 rule's `max_ms` defaults to the spec's slo.ttft_ms (resolveGate); a limit the spec adds names its own. */
const ttftLimit = rule({ max_ms: Optional(nonNegative()) }, {});
const latencyLimit = rule({ max_ms: nonNegative() });
const throughputRule = (fallback?: object) => rule({ max_decrease_pct: nonNegative(5) }, fallback);

export type RuleFlags = Static<TObject<typeof flags>>;
export type LatencyIncreaseRule = Static<typeof latencyIncrease>;
export type ThroughputDecreaseRule = Static<ReturnType<typeof throughputRule>>;
export type LatencyLimitRule = Static<typeof ttftLimit>;

const latency = Type.Unsafe<Partial<Record<LatencyKey, LatencyIncreaseRule>>>({
  type: 'object',
  default: {},
  description: 'a mapping from <metric>_<percentile> to { max_increase_pct, max_increase_ms }',
  propertyNames: keyNames(LATENCY_KEY, 'latency rules'),
  properties: Object.fromEntries(Object.entries(LATENCY_DEFAULTS).map(([key, pct]) => [key, latencyIncreaseDefault(pct)])),
  additionalProperties: latencyIncrease,
});

/** The default gate judges output tokens/s; the other throughput rules apply when the spec names them. */
const throughput = Mapping(
  {
    output_tokens_per_s: throughputRule({}),
    requests_per_s: Optional(throughputRule()),
    goodput_per_s: Optional(throughputRule()),
  } satisfies Record<ThroughputKey, TSchema>,
  { default: {}, description: `a mapping with keys ${THROUGHPUT_KEYS.join(', ')}` },
);

const fixedSlo = {
  http_5xx_rate: rule({ max: fraction(0.01) }, {}),
  http_429_rate: rule({ max: fraction(0.05) }, {}),
  goodput_fraction: rule({ min: fraction(0.99) }, {}),
};
const FIXED_SLO_KEYS = Object.keys(fixedSlo);
const slo = Type.Unsafe<Static<TObject<typeof fixedSlo>> & Partial<Record<LatencyKey, LatencyLimitRule>>>({
  type: 'object',
  default: {},
  description: `a mapping with keys ${FIXED_SLO_KEYS.join(', ')} and <metric>_<percentile> latency limits`,
  propertyNames: keyNames(`(${LATENCY_KEY}|${FIXED_SLO_KEYS.join('|')})`, `SLO rules are ${FIXED_SLO_KEYS.join(', ')} or latency limits`),
  properties: { ttft_p95: ttftLimit, ...fixedSlo },
  additionalProperties: latencyLimit,
});

/**
 * Explicit run-level generator limits, as the spec wrote them (no defaults are filled here:
 * result/validity.ts fills them for the run's own checks). A timing limit written here blocks
 * every timing-dependent rule when its run breaks it; left out, each rule is judged against
 * the generator's timestamp error bound instead (src/gate/timing-validity.ts).
 */
const validity = Mapping(
  Object.fromEntries(GENERATOR_LIMIT_KEYS.map((key) => [key, Optional(key.endsWith('_ms') ? nonNegative() : fraction())])) as {
    [K in keyof GeneratorLimits]: TOptional<TNumber>;
  },
  {
    default: {},
    description: `a mapping with keys ${GENERATOR_LIMIT_KEYS.join(', ')}`,
  },
);

/** JSON Schema (draft-07, ajv strict, useDefaults) of the spec's `gate` section; its Static is GateSpec. */
export const gateSchema = Mapping(
  {
    latency,
    throughput,
    /** Share of window requests not ok may rise at most this many percentage points. */
    error_rate: rule({ max_increase_pp: nonNegative(1) }, {}),
    slo,
    // Pattern rules have no defaults: a gate without them stays as it was (and so does its spec hash).
    /** A spike pattern's recovery (result pattern.spike.recovery_s) may take at most this long; judged in gate/pattern-rules.ts. */
    spike: Optional(rule({ max_recovery_s: nonNegative() })),
    /** A soak's latency may drift at most this much from its first to its last segment, beyond noise. */
    soak: Optional(rule({ max_drift_pct: nonNegative() })),
    /** One-sided confidence of the noise test. */
    confidence: Type.Number({ minimum: 0.5, exclusiveMaximum: 1, default: 0.95, description: 'a number in [0.5, 1), e.g. 0.95' }),
    bootstrap_iterations: Type.Integer({
      minimum: 100,
      maximum: 100000,
      default: 1000,
      description: 'an integer between 100 and 100000',
    }),
    /** A percentile p is judged only with ≥ this many samples above it: n ≥ min_tail_samples / (1 − p). */
    min_tail_samples: Type.Integer({ minimum: 1, default: 10, description: 'an integer ≥ 1' }),
    /** Offered rate and delivered prompt/output length means may differ from the baseline's by this much. */
    tolerance_pct: nonNegative(10),
    /** A latency rule is judged only while the timestamp error bound is ≤ this share of its allowed change (or SLO margin). */
    max_timestamp_error_share: Type.Number({
      exclusiveMinimum: 0,
      default: 0.25,
      description: 'a number > 0, e.g. 0.25 (a quarter of the allowed change)',
    }),
    /** Between-run coefficient of variation above which the environment is called unstable and the verdict inconclusive. */
    max_cv: Type.Number({ exclusiveMinimum: 0, default: 0.1, description: 'a number > 0, e.g. 0.1 (10 %)' }),
    /** Path of a calibration file (loadgate calibrate) whose between-run CVs widen every comparison. */
    calibration: Optional(Type.String({ minLength: 1, description: 'the path of a calibration file written by loadgate calibrate' })),
    /** Which parts of the noise model apply beyond the bootstrap (both on by default). */
    noise: Mapping(
      {
        segments: Type.Boolean({ default: true, description: 'true or false' }),
        between_run: Type.Boolean({ default: true, description: 'true or false' }),
        /**
         * The between-run CV of latency percentiles assumed where nothing measured it (one run a
         * side, no calibration): a single run cannot see how far the engine drifts between runs.
         */
        assumed_cv: Type.Number({
          minimum: 0,
          maximum: 1,
          default: ASSUMED_BETWEEN_RUN_CV,
          description: 'a fraction between 0 and 1, e.g. 0.1 (10 %; 0 assumes none)',
        }),
      },
      {
        default: {},
        description: 'a mapping with keys segments, between_run (true or false) and assumed_cv (a fraction between 0 and 1)',
      },
    ),
    // Explicit overrides only (no defaults here): the run's own checks use result/validity.ts's defaults.
    validity,
  },
  {
    default: {},
    description:
      'a mapping with keys latency, throughput, error_rate, slo, spike, soak, confidence, bootstrap_iterations, min_tail_samples, tolerance_pct, validity, max_timestamp_error_share, max_cv, calibration, noise',
  },
);

export type GateSpec = Static<typeof gateSchema>;

// Compiled inside a wrapper, as the spec schema holds it: a default at a schema's root is not applied.
const validateGate = compileOnFirstUse<{ gate: GateSpec }>('gate', () => ({
  options: { allErrors: false, useDefaults: true, strict: true },
  schema: { type: 'object', properties: { gate: gateSchema } },
}));

/**
 * A gate section (as written, or undefined) with every default filled. The TTFT p95 SLO
 * defaults to the spec's slo.ttft_ms, so "the SLO" is stated once. Throws on an invalid section.
 */
export function resolveGate(raw: unknown, slo?: { ttft_ms: number }): GateSpec {
  // A JSON round trip, not structuredClone: YAML aliases share objects, and defaults must fill each copy alone.
  const doc = { gate: JSON.parse(JSON.stringify(raw ?? {})) as unknown };
  if (!validateGate()(doc)) {
    const e = validateGate().errors![0];
    throw new Error(`${e.instancePath.slice(1).replace(/\//g, '.')}: ${e.message}`);
  }
  const { gate } = doc;
  const ttft = gate.slo.ttft_p95!;
  ttft.max_ms ??= slo?.ttft_ms ?? 500;
  return gate;
}

/** The gate a spec asks for: its `gate` section (when the spec schema has one) with defaults. */
export function gateOf(spec: { slo?: { ttft_ms: number } }): GateSpec {
  return resolveGate((spec as { gate?: unknown }).gate, spec.slo);
}

/**
 * The gate of a spec that sets none. A function, not a constant: resolving it compiles the gate
 * schema, which a module-level constant would do at every process start (`--version` included).
 */
export function defaultGate(): GateSpec {
  return resolveGate(undefined);
}
