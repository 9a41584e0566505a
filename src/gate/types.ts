export type Verdict = 'pass' | 'fail' | 'inconclusive';
export type RuleStatus = 'pass' | 'fail' | 'warn' | 'inconclusive';
/** Units of a rule's values; `fraction` values (rates, goodput) are 0…1. */
export type RuleUnit = 'ms' | 's' | 'tok/s' | 'req/s' | 'fraction';

export interface RuleOutcome {
  /** Stable id, e.g. "latency.ttft_p95", "throughput.output_tokens_per_s", "error_rate", "slo.http_5xx_rate". */
  id: string;
  /** regression: judged against the baseline; slo: absolute, judged on the current run alone. */
  kind: 'regression' | 'slo';
  /** What is measured, e.g. "TTFT p95". */
  metric: string;
  /** The limit in words, e.g. "may rise ≤ 10 % or 20 ms, whichever is larger". */
  limit: string;
  /** metric + limit: "TTFT p95 may rise ≤ 10 % or 20 ms, whichever is larger". */
  rule: string;
  unit: RuleUnit;
  /** warn: violated, but the rule is warn_only; the verdict ignores it. */
  status: RuleStatus;
  warn_only: boolean;
  baseline: number | null;
  current: number | null;
  /** current − baseline, and relative to the baseline (null when the baseline is 0). */
  change: { abs: number; rel: number | null } | null;
  /** Regression rules: the allowed change (signed, in `unit`); SLO rules: the limit. */
  threshold: number | null;
  /** Noise interval of change.abs: each end a one-sided bound at `confidence`. */
  ci: { lower: number; upper: number; confidence: number } | null;
  /** Why the status is what it is, with the numbers. */
  reason: string;
  /**
   * What the rule's evidence is: `errors` (request classes: error rate, 5xx, 429, goodput lost to
   * errors) does not depend on the generator's timing precision, so it is judged whatever the
   * timing checks say; `measurements` (latencies, throughput) does. Absent: measurements.
   */
  evidence?: 'errors' | 'measurements';
  /** Per-rule timing validity (latency rules): the generator's timestamp error bound against what the rule allows. */
  timing?: TimingJudgement;
  /** Regression rules: the smallest change this comparison would have caught (see gate/detectable.ts); null when not judged. */
  mde?: { abs: number; rel: number | null; power: number } | null;
  /** What the noise interval was made of beyond sampling noise (see gate/noise.ts). */
  noise?: RuleNoise;
}

export interface TimingJudgement {
  /** The bound at the rule's percentile (ms): the larger of the two runs' for a regression rule. */
  bound_ms: number;
  /** Where the bound came from: the result's timestamp_error_ms, or (older results) its schedule-lag and loop-delay tails. */
  source: 'timestamp_error' | 'lag_and_loop_delay';
  /** What the rule allows (ms): the allowed change, or the SLO's margin |limit − value|. */
  allowed_ms: number;
  /** The bound may be at most this much: share × allowed. */
  max_bound_ms: number;
  judgeable: boolean;
}

export type NoiseSource = 'bootstrap' | 'segments' | 'replicates' | 'calibration' | 'assumed';

export interface RuleNoise {
  /** Standard error (in the rule's unit) added for slow drift within the runs, from per-segment percentiles; null when not estimated. */
  within_run: number | null;
  /** Between-run coefficient of variation applied (the larger of the two sides'), null when none was known. */
  between_run_cv: number | null;
  source: NoiseSource[];
}

export interface CheckOutcome {
  /** Which run a validity check belongs to, `comparability` for baseline-vs-current checks, `calibration` for the calibration file. */
  scope: 'baseline' | 'current' | 'comparability' | 'calibration';
  name: string;
  ok: boolean;
  message: string;
  /**
   * What a failure of this check does to the verdict (src/gate/check-effects.ts): `blocks` every
   * rule; `measurements` blocks the rules judged on timings and throughput but not those on
   * errors; `server` leaves it undecided (what the server did, e.g. too few samples); `advisory`
   * only informs (a default generator limit, superseded by per-rule timing validity); `rules`
   * is carried by the rules it names (an unstable metric makes its own regression rules
   * inconclusive, src/gate/noise.ts). Absent (checks made outside compare, e.g. a sweep's): `server` for samples and littles_law, else `blocks`.
   */
  effect?: 'blocks' | 'measurements' | 'server' | 'advisory' | 'rules';
}

export interface GateReport {
  verdict: Verdict;
  /** One line each: why the verdict is what it is. */
  reasons: string[];
  /** False when there was no baseline: only absolute (SLO) rules were judged. */
  has_baseline: boolean;
  rules: RuleOutcome[];
  /** Validity checks of both runs and the comparability checks between them. */
  checks: CheckOutcome[];
  /** How the noise test ran, so a verdict can be reproduced. */
  noise: {
    method: string;
    confidence: number;
    iterations: number;
    seed: number;
    /** Every noise source some rule used (bootstrap, segments, replicates, calibration). */
    sources?: NoiseSource[];
    /** The calibration file applied, when one was. */
    calibration?: { replicates: number; created_at: string };
  };
}
