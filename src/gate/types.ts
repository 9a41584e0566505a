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
}

export interface CheckOutcome {
  /** Which run a validity check belongs to, or `comparability` for baseline-vs-current checks. */
  scope: 'baseline' | 'current' | 'comparability';
  name: string;
  ok: boolean;
  message: string;
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
  noise: { method: string; confidence: number; iterations: number; seed: number };
}
