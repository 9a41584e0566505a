import type { SchemaObject } from 'ajv';
import { Nullable, OneOf, Type, type Static } from '../json-schema.js';
import { resultSchema } from '../result/schema.js';
import type { Result } from '../result/types.js';
import { SWEEP_METRICS } from '../spec/sweep-schema.js';
import type { Spec } from '../spec/types.js';
import { SWEEP_KIND, SWEEP_SCHEMA_VERSION } from './document.js';

/*
 * The sweep document, schema_version 1 (src/capacity/document.ts): its JSON Schema, written once
 * with TypeBox, whose Static parts are the capacity types (types.ts). Each point's result is held
 * to result.json's own schema (by $ref to RESULT_SCHEMA_ID), so a point can be cut out and used
 * as a baseline. As there, objects accept extra keys: fields added without a version bump must
 * not make older loadgates reject newer files.
 */

export const RESULT_SCHEMA_ID = 'https://loadgate.dev/schema/result.json';

/** result.json's schema under an $id, so the sweep schema can refer to it. */
export const identifiedResultSchema: SchemaObject = { ...resultSchema, $id: RESULT_SCHEMA_ID };

const num = Type.Number();
const str = Type.String();
const bool = Type.Boolean();
const nnum = Nullable(num);
const nstr = Nullable(str);
const mode = OneOf(['open', 'closed']);

/**
 * Why a point was measured: the light-load probe, a point below the first step when that one is
 * already loaded, the closed-loop maximum-throughput point (profile guidellm), a planned step, a
 * fill-in near saturation, a bisection step of capacity at SLO, or of the knee.
 */
export const POINT_ROLES = ['probe', 'below', 'throughput', 'step', 'fill', 'bisect', 'knee'] as const;
const role = OneOf(POINT_ROLES);

/** One measured operating point of a sweep: a full single-point result at one offered load. */
export const SweepPointSchema = Type.Object({
  role,
  mode,
  /** Nominal open-loop rate asked for, req/s (null for closed loop). */
  rate_per_s: nnum,
  /** Closed-loop concurrency (null for open loop). */
  concurrency: Nullable(Type.Integer({ minimum: 1 })),
  result: Type.Unsafe<Result>({ $ref: `${RESULT_SCHEMA_ID}#` }),
  /** Windows merged into this point: 1, or more when a point within a rule's noise was measured again. Absent = 1. */
  windows: Type.Optional(Type.Integer({ minimum: 1 })),
});

/** A load's range of uncertainty: the value lies between these, at the rules' confidence (null: open-ended). */
export const LoadRangeSchema = Type.Object({ lower: nnum, upper: nnum });

/** The knee's rules on one curve point, each with its noise (src/capacity/knee.ts). */
export const KneeCheckSchema = Type.Object({
  index: num,
  load: num,
  /** pass: every rule passes with its noise against it; fail: one fails with its noise in its favour; ambiguous: within noise. */
  verdict: OneOf(['pass', 'fail', 'ambiguous']),
  /** Every rule passes on its point estimate. */
  estimate_pass: bool,
  /** The p99's confidence bounds over the monotone envelope of the points, ms. */
  tail_ms: Nullable(Type.Object({ lower: num, upper: num })),
  /** The rules that failed or were within noise, in words (null: all passed). */
  why: nstr,
});

export const PointAnalysisSchema = Type.Object({
  index: num,
  role,
  mode,
  /** The load's x value: the nominal rate (open loop) or the concurrency (closed loop). */
  load: num,
  /** Arrivals per second in the window as realised (open loop); dispatches per second (closed loop). */
  offered_rate_per_s: num,
  /** Completed requests per second in the window: the throughput. */
  requests_per_s: num,
  output_tokens_per_s: num,
  /** requests_per_s / offered_rate_per_s. */
  achieved_fraction: nnum,
  latency_ms: Type.Object({ p50: nnum, p90: nnum, p99: nnum }),
  e2e_ms: Type.Object({ mean: nnum, p90: nnum, p99: nnum, p999: nnum }),
  goodput_fraction: nnum,
  /** Utilisation ρ = requests_per_s / saturation requests_per_s. */
  utilization: nnum,
  littles_law: Type.Object({
    /** L = λ·W: dispatch rate × mean time in system. */
    predicted_in_flight: num,
    /** Measured time-average of requests in flight over the window. */
    mean_in_flight: num,
    peak_in_flight: nnum,
    /** L above the batch slots: requests queue at the server (null when the slots are unknown). */
    oversubscribed: Nullable(bool),
  }),
  /** Past saturation by the stop rule, and why. */
  saturated: bool,
  saturated_because: nstr,
  /** All of the point's validity checks passed. */
  valid: bool,
  interrupted: bool,
});

/**
 * Every `point` / `points` field holds 0-based indices into the document's `points` (reports
 * number points from 1); the `range` fields are absent in sweeps written before loadgate measured them.
 */
export const SweepAnalysisSchema = Type.Object({
  mode,
  metric: OneOf(SWEEP_METRICS),
  /** S, ms: the metric's p50 at the lightest point, less the round trip when one was measured. */
  service_floor_ms: nnum,
  service_floor: Type.Object({
    point: nnum,
    p50_ms: nnum,
    ttft_p50_ms: nnum,
    e2e_p50_ms: nnum,
    rtt_ms: nnum,
    utilization: nnum,
    rule: str,
    note: nstr,
  }),
  knee: Type.Object({
    rate_per_s: nnum,
    concurrency: nnum,
    point: nnum,
    /** The metric's p99 there and the limit 3 × S it was held to. */
    p99_ms: nnum,
    limit_ms: nnum,
    /** The next point measured above the knee, where a rule first broke (resolution of the knee). */
    next_load: nnum,
    /** From the highest point of the leading run of clear passes to the first clear failure. */
    range: Type.Optional(Nullable(LoadRangeSchema)),
    checks: Type.Optional(Type.Array(KneeCheckSchema)),
    /** Points at or below the knee's end whose verdict was within a rule's noise. */
    ambiguous: Type.Optional(Type.Array(num)),
    rule: str,
    note: nstr,
  }),
  saturation: Type.Object({
    requests_per_s: nnum,
    output_tokens_per_s: nnum,
    /** True when some point was past saturation; false: the numbers are lower bounds. */
    reached: bool,
    points: Type.Array(num),
    /** X_max's bounds (req/s) from the plateau's count noise or spread. */
    range: Type.Optional(Nullable(Type.Object({ lower: num, upper: num }))),
    rule: str,
  }),
  capacity_at_slo: Type.Object({
    rate_per_s: nnum,
    concurrency: nnum,
    target: num,
    /** Highest load that met the target, and the lowest above it that did not: capacity lies between. */
    passing_load: nnum,
    failing_load: nnum,
    /** (failing − passing) / passing: how finely the bisection pinned it. */
    resolution: nnum,
    /** From the passing load to the first load that misses the target beyond noise (or the failing one). */
    range: Type.Optional(Nullable(LoadRangeSchema)),
    precision: num,
    rule: str,
    note: nstr,
  }),
  batch_slots: nnum,
  oversubscribed: Type.Array(str),
  points: Type.Array(PointAnalysisSchema),
});

export const SizingAnswerSchema = Type.Object({
  peak_rate_per_s: num,
  target_utilization: num,
  /** λ_max used: the saturation throughput. */
  max_rate_per_s: num,
  replicas: Type.Integer({ minimum: 1 }),
  replicas_formula: str,
  /** ⌈λ_peak / capacity at SLO⌉ when that capacity is known. */
  replicas_at_slo: nnum,
  replicas_at_slo_formula: nstr,
  /** The measured point W and W_p99 are taken from, and why. */
  operating_point: Type.Object({ load: num, point: num, why: str }),
  kv_sequences: num,
  kv_sequences_formula: str,
  kv_sequences_p99: num,
  kv_sequences_p99_formula: str,
  timeout_ms: num,
  timeout_formula: str,
});

/** The spec of the sweep, held to the keys every reader uses (as in result.json); typed as the spec. */
const spec = Type.Unsafe<Spec>(Type.Object({ name: str, target: Type.Object({}), sweep: Type.Object({}) }));

/** The result of `loadgate sweep`: every point's full result, the analysis and the sizing. */
export const sweepSchema = Type.Object(
  {
    schema_version: Type.Literal(SWEEP_SCHEMA_VERSION),
    kind: Type.Literal(SWEEP_KIND),
    tool: Type.Object({ name: Type.Literal('loadgate'), version: str }),
    created_at: str,
    /** "open-loop rate sweep" or "closed-loop concurrency sweep": said everywhere the sweep is shown. */
    label: str,
    spec,
    spec_hash: str,
    target: resultSchema.properties.target,
    /** True when the sweep was stopped (Ctrl-C) before its plan was done; the points so far are kept. */
    interrupted: bool,
    /** Why stepping stopped, in words. */
    stopped_because: str,
    /** Planned loads not measured because an earlier point was past saturation (or the sweep was interrupted). */
    skipped_loads: Type.Array(num),
    points: Type.Array(SweepPointSchema),
    analysis: SweepAnalysisSchema,
    sizing: Nullable(SizingAnswerSchema),
  },
  { $schema: 'http://json-schema.org/draft-07/schema#' },
);

export type SweepDocument = Static<typeof sweepSchema>;
