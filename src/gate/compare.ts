import type { Result } from '../result/types.js';
import { runChecks } from './check-effects.js';
import { comparabilityChecks } from './comparability.js';
import type { CalibrationFile } from './calibration.js';
import { applyStability, noiseModelOf, stability } from './noise.js';
import { judgeErrorRateIncrease, judgeLatencyIncrease, judgeThroughputDecrease, throughputSpread } from './regression.js';
import { judgeContext } from './context.js';
import { abortVerdict, judgePatternRules } from './pattern-rules.js';
import { latencyTarget, sortedLatencyKeys } from './targets.js';
import { THROUGHPUT_KEYS, type GateSpec } from '../spec/gate-schema.js';
import { judgeLatencyLimit, judgeRateLimits } from './slo.js';
import type { CheckOutcome, GateReport, RuleOutcome } from './types.js';
import { applyTimingValidity, goodputByErrors } from './timing-validity.js';
import { allFailed, decideVerdict } from './verdict.js';
import { appendAll } from '../numbers.js';

export interface CompareOptions {
  /** Seed of the bootstrap (default 1): the same inputs always give the same verdict. */
  seed?: number;
  /** Bootstrap iterations; defaults to the gate's bootstrap_iterations. */
  iterations?: number;
  /** Between-run CVs of the deployment (loadgate calibrate), loaded by the caller from gate.calibration or --calibration. */
  calibration?: CalibrationFile | null;
}

const NOISE_METHOD =
  'percentiles: bootstrap of the percentile difference (exact multinomial resampling of both histograms via Beta order statistics), widened by within-run drift (batch means over window segments) and between-run spread (replicate or calibration CV; for percentiles where neither measured it, an assumed CV); throughput: per-request resampling, widened by between-run spread; error rate: Agresti–Caffo. A regression needs the one-sided bound beyond the allowed change.';

/**
 * Judges `current` against `baseline` (null: no baseline, absolute rules only) under `gate`.
 * Pure: histograms in, a report with every rule's outcome and the verdict out.
 */
export function compare(baseline: Result | null, current: Result, gate: GateSpec, opts: CompareOptions = {}): GateReport {
  const seed = opts.seed ?? 1;
  const iterations = opts.iterations ?? gate.bootstrap_iterations;
  const noise = noiseModelOf(gate, opts.calibration ?? null);
  const ctx = judgeContext({ confidence: gate.confidence, iterations, minTail: gate.min_tail_samples, seed, noise });
  const rules: RuleOutcome[] = [];
  if (baseline) {
    for (const key of sortedLatencyKeys(Object.keys(gate.latency))) {
      const rule = gate.latency[key]!;
      if (rule.enabled) rules.push(judgeLatencyIncrease(key, rule, baseline, current, ctx));
    }
    for (const key of THROUGHPUT_KEYS) {
      const rule = gate.throughput[key];
      if (rule?.enabled) rules.push(judgeThroughputDecrease(key, rule, baseline, current, ctx));
    }
    if (gate.error_rate.enabled) rules.push(judgeErrorRateIncrease(gate.error_rate, baseline, current, ctx));
  }
  const latencyLimits = Object.keys(gate.slo).filter((k) => !['http_5xx_rate', 'http_429_rate', 'goodput_fraction'].includes(k));
  for (const key of sortedLatencyKeys(latencyLimits)) {
    const rule = gate.slo[key]!;
    if (rule.enabled && rule.max_ms !== undefined)
      rules.push(judgeLatencyLimit(key, { ...rule, max_ms: rule.max_ms }, baseline, current, ctx));
  }
  appendAll(rules, judgeRateLimits(gate.slo, baseline, current, ctx));
  appendAll(rules, judgePatternRules(gate, current));

  const spreadKeys = judgedSpreadKeys(gate);
  const stable = baseline ? stability(baseline, current, spreadKeys, noise, gate.max_cv, gate.confidence) : null;
  const checks: CheckOutcome[] = [
    ...(baseline ? runChecks(baseline, 'baseline', gate) : []),
    ...runChecks(current, 'current', gate),
    ...(baseline ? comparabilityChecks(baseline, current, gate.tolerance_pct).map((c) => ({ ...c, effect: 'blocks' as const })) : []),
    ...(stable?.checks ?? []),
  ];
  const keyOfRule = new Map(spreadKeys.map((k) => [k.ruleId, k.key]));
  const timed = applyTimingValidity(rules, baseline, current, gate);
  const steady = stable ? applyStability(timed, stable.unstable, (r) => keyOfRule.get(r.id) ?? null) : timed;
  const judged = trustErrorCounts(steady, checks, current, gate.confidence);
  // A server that failed every request fails, even when the run was aborted for its error rate.
  const broken = allFailed(current);
  const decided = decideVerdict(judged, checks, baseline !== null, broken);
  const { verdict, reasons } = broken ? decided : abortVerdict(current, decided);
  return {
    verdict,
    reasons,
    has_baseline: baseline !== null,
    rules: judged,
    checks,
    noise: {
      method: NOISE_METHOD,
      confidence: gate.confidence,
      iterations,
      seed,
      sources: [...new Set(judged.flatMap((r) => r.noise?.source ?? []))],
      ...(noise.calibration ? { calibration: { replicates: noise.calibration.replicates, created_at: noise.calibration.created_at } } : {}),
    },
  };
}

/**
 * When a check on the generator's measurements failed (an explicit gate.validity limit), the
 * goodput rule is judged on failed requests alone, which no timing can move.
 */
function trustErrorCounts(rules: RuleOutcome[], checks: CheckOutcome[], current: Result, confidence: number): RuleOutcome[] {
  const broken = checks.filter((c) => !c.ok && c.effect === 'measurements');
  if (broken.length === 0) return rules;
  const why = `timings not trusted: ${broken.map((c) => `${c.scope} ${c.name}`).join(', ')}`;
  return rules.map((r) =>
    r.id === 'slo.goodput_fraction' && r.evidence !== 'errors' ? goodputByErrors(r, current, why, confidence, r.timing) : r,
  );
}

/** The replicate-spread keys of the enabled regression rules, with the rule each belongs to: what an unstable environment would corrupt. */
function judgedSpreadKeys(gate: GateSpec): { key: string; label: string; ruleId: string }[] {
  const latency = sortedLatencyKeys(Object.keys(gate.latency))
    .filter((k) => gate.latency[k]!.enabled)
    .map((k) => ({ k, t: latencyTarget(k) }))
    .map(({ k, t }) => ({ key: `${t.metric}.${t.pct}`, label: t.label, ruleId: `latency.${k}` }));
  const throughput = THROUGHPUT_KEYS.filter((k) => gate.throughput[k]?.enabled).map((k) => ({
    ...throughputSpread(k),
    ruleId: `throughput.${k}`,
  }));
  return [...latency, ...throughput];
}
