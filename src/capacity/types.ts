import type { Result } from '../result/types.js';
import type { SweepSpec } from '../spec/sweep-schema.js';

/**
 * Why a point was measured: the light-load probe, a point below the first step when that one is
 * already loaded, the closed-loop maximum-throughput point (profile guidellm), a planned step, a
 * fill-in near saturation, a bisection step of capacity at SLO, or of the knee.
 */
export type PointRole = 'probe' | 'below' | 'throughput' | 'step' | 'fill' | 'bisect' | 'knee';

/** One measured operating point of a sweep: a full single-point result at one offered load. */
export interface SweepPoint {
  role: PointRole;
  mode: 'open' | 'closed';
  /** Nominal open-loop rate asked for, req/s (null for closed loop). */
  rate_per_s: number | null;
  /** Closed-loop concurrency (null for open loop). */
  concurrency: number | null;
  result: Result;
  /** Windows merged into this point: 1, or more when a point within a rule's noise was measured again. Absent = 1. */
  windows?: number;
}

/** A load's range of uncertainty: the value lies between these, at the rules' confidence (null: open-ended). */
export interface LoadRange {
  lower: number | null;
  upper: number | null;
}

/** The knee's rules on one curve point, each with its noise (src/capacity/knee.ts). */
export interface KneeCheck {
  index: number;
  load: number;
  /** pass: every rule passes with its noise against it; fail: one fails with its noise in its favour; ambiguous: within noise. */
  verdict: 'pass' | 'fail' | 'ambiguous';
  /** Every rule passes on its point estimate. */
  estimate_pass: boolean;
  /** The p99's confidence bounds over the monotone envelope of the points, ms. */
  tail_ms: { lower: number; upper: number } | null;
  /** The rules that failed or were within noise, in words (null: all passed). */
  why: string | null;
}

/** What the analysis needs to know besides the points. */
export interface AnalysisOptions {
  metric: SweepSpec['metric'];
  sloTarget: number;
  stop: SweepSpec['stop'];
  /** Sequences one replica runs at once, when known (sizing.batch_slots, or the simulator's max_num_seqs). */
  batchSlots: number | null;
  /** Network round trip to subtract from S, ms, when one was measured (the result's network probe). */
  rttMs?: number | null;
  /** Relative resolution the bisection of capacity at SLO aims for. */
  precision: number;
}

export interface PointAnalysis {
  index: number;
  role: PointRole;
  mode: 'open' | 'closed';
  /** The load's x value: the nominal rate (open loop) or the concurrency (closed loop). */
  load: number;
  /** Arrivals per second in the window as realised (open loop); dispatches per second (closed loop). */
  offered_rate_per_s: number;
  /** Completed requests per second in the window: the throughput. */
  requests_per_s: number;
  output_tokens_per_s: number;
  /** requests_per_s / offered_rate_per_s. */
  achieved_fraction: number | null;
  latency_ms: { p50: number | null; p90: number | null; p99: number | null };
  e2e_ms: { mean: number | null; p90: number | null; p99: number | null; p999: number | null };
  goodput_fraction: number | null;
  /** Utilisation ρ = requests_per_s / saturation requests_per_s. */
  utilization: number | null;
  littles_law: {
    /** L = λ·W: dispatch rate × mean time in system. */
    predicted_in_flight: number;
    /** Measured time-average of requests in flight over the window. */
    mean_in_flight: number;
    peak_in_flight: number | null;
    /** L above the batch slots: requests queue at the server (null when the slots are unknown). */
    oversubscribed: boolean | null;
  };
  /** Past saturation by the stop rule, and why. */
  saturated: boolean;
  saturated_because: string | null;
  /** All of the point's validity checks passed. */
  valid: boolean;
  interrupted: boolean;
}

/** Every `point` / `points` field holds 0-based indices into the document's `points`; the `range` fields are absent in sweeps written before loadgate measured them. */
/** Every `point` / `points` field holds 0-based indices into the document's `points`; reports number points from 1. */
export interface SweepAnalysis {
  mode: 'open' | 'closed';
  metric: SweepSpec['metric'];
  /** S, ms: the metric's p50 at the lightest point, less the round trip when one was measured. */
  service_floor_ms: number | null;
  service_floor: {
    point: number | null;
    p50_ms: number | null;
    ttft_p50_ms: number | null;
    e2e_p50_ms: number | null;
    rtt_ms: number | null;
    utilization: number | null;
    rule: string;
    note: string | null;
  };
  knee: {
    rate_per_s: number | null;
    concurrency: number | null;
    point: number | null;
    /** The metric's p99 there and the limit 3 × S it was held to. */
    p99_ms: number | null;
    limit_ms: number | null;
    /** The next point measured above the knee, where a rule first broke (resolution of the knee). */
    next_load: number | null;
    /** From the highest point of the leading run of clear passes to the first clear failure. */
    range?: LoadRange | null;
    checks?: KneeCheck[];
    /** Points at or below the knee's end whose verdict was within a rule's noise. */
    ambiguous?: number[];
    rule: string;
    note: string | null;
  };
  saturation: {
    requests_per_s: number | null;
    output_tokens_per_s: number | null;
    /** True when some point was past saturation; false: the numbers are lower bounds. */
    reached: boolean;
    points: number[];
    /** X_max's bounds (req/s) from the plateau's count noise or spread. */
    range?: { lower: number; upper: number } | null;
    rule: string;
  };
  capacity_at_slo: {
    rate_per_s: number | null;
    concurrency: number | null;
    target: number;
    /** Highest load that met the target, and the lowest above it that did not: capacity lies between. */
    passing_load: number | null;
    failing_load: number | null;
    /** (failing − passing) / passing: how finely the bisection pinned it. */
    resolution: number | null;
    /** From the passing load to the first load that misses the target beyond noise (or the failing one). */
    range?: LoadRange | null;
    precision: number;
    rule: string;
    note: string | null;
  };
  batch_slots: number | null;
  oversubscribed: string[];
  points: PointAnalysis[];
}

export interface SizingAnswer {
  peak_rate_per_s: number;
  target_utilization: number;
  /** λ_max used: the saturation throughput. */
  max_rate_per_s: number;
  replicas: number;
  replicas_formula: string;
  /** ⌈λ_peak / capacity at SLO⌉ when that capacity is known. */
  replicas_at_slo: number | null;
  replicas_at_slo_formula: string | null;
  /** The measured point W and W_p99 are taken from, and why. */
  operating_point: { load: number; point: number; why: string };
  kv_sequences: number;
  kv_sequences_formula: string;
  kv_sequences_p99: number;
  kv_sequences_p99_formula: string;
  timeout_ms: number;
  timeout_formula: string;
}
