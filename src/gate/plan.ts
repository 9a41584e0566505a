import { createRng } from '../rng.js';
import type { Result } from '../result/types.js';
import { percentileOf } from '../metrics/buckets.js';
import type { CalibrationFile } from './calibration.js';
import { DETECTION_POWER } from './detectable.js';
import { bootstrapSe, noiseModelOf, sideSpread } from './noise.js';
import { judgeContext } from './context.js';
import { minSamples } from '../metrics/samples.js';
import { latencyTarget, sortedLatencyKeys } from './targets.js';
import { latencyFloor } from './floors.js';
import type { GateSpec } from '../spec/gate-schema.js';
import { normalQuantile, studentQuantile } from '../metrics/stats.js';

/*
 * How much measuring a change of a given size takes, from a baseline's histograms. A rule fails a
 * true change δ with probability π = 80 % once (detectable.ts)
 *     δ ≥ T + (z + z_π) · SE_diff,
 * T the rule's allowed change. With R replicates a side of n window samples each:
 *     SE_diff² = 2 · se₁² · n_b / (R · n)          (sampling: a percentile's SE falls as 1/√samples,
 *                                                   se₁ measured by bootstrap on the baseline's n_b)
 *              + 2 · (cv · v · t_ν / z)² / R        (between runs: each side's mean of R runs, cv as
 *                                                   the comparison takes it (noise.ts sideSpread),
 *                                                   t-scaled for the runs it came from)
 * Solved for n at R = 1 (the steady window, at the baseline's samples per second scaled to the
 * spec's rate) and for R at the spec's window. No measured between-run CV: the gate's assumed one
 * (gate.noise.assumed_cv), as the comparison will take it, and said.
 */

export interface RulePlan {
  id: string;
  metric: string;
  baseline_ms: number;
  allowed_ms: number;
  detect_ms: number;
  /** Why nothing can be planned, when so (the change is within what the rule allows). */
  impossible: string | null;
  /** Steady window (s) one run a side needs; null when one run cannot do it at any length. */
  window_s: number | null;
  /** Replicates a side needed at the spec's window; null beyond 100. */
  replicates: number | null;
  between_run_cv: number | null;
  cv_source: 'calibration' | 'replicates' | 'assumed' | null;
}

export interface PlanInput {
  baseline: Result;
  gate: GateSpec;
  /** The relative change to detect, e.g. 0.1. */
  detect: number;
  /** The spec's rate (req/s) and steady window (s). */
  rate: number;
  windowS: number;
  calibration: CalibrationFile | null;
}

export function planDetection(o: PlanInput): RulePlan[] {
  const ctx = judgeContext({ confidence: o.gate.confidence, iterations: 0, minTail: o.gate.min_tail_samples, seed: 1 });
  const z = normalQuantile(o.gate.confidence);
  const zPower = normalQuantile(DETECTION_POWER);
  const noise = noiseModelOf(o.gate, o.calibration);
  const plans: RulePlan[] = [];
  for (const key of sortedLatencyKeys(Object.keys(o.gate.latency))) {
    const rule = o.gate.latency[key]!;
    if (!rule.enabled) continue;
    const t = latencyTarget(key);
    const b = ctx.buckets(o.baseline, t.histogram, 1000);
    if (!b || b.n < minSamples(t.p, o.gate.min_tail_samples)) continue;
    const v = percentileOf(b, t.p);
    // The current run is not measured yet: its timestamp error bound is taken to be the baseline's.
    const floor = latencyFloor(key, rule, o.baseline, null, v);
    const allowed = Math.max((rule.max_increase_pct / 100) * v, floor.ms);
    const detect = o.detect * v;
    // The between-run CV the comparison will take for this rule (noise.ts): the same choice of
    // source, the baseline's replicates or the calibration's, else the assumed CV.
    const spread = sideSpread(o.baseline, null, `${t.metric}.${t.pct}`, noise, true);
    const cv = spread?.cv ?? null;
    const base = {
      id: `latency.${key}`,
      metric: t.label,
      baseline_ms: v,
      allowed_ms: allowed,
      detect_ms: detect,
      between_run_cv: cv,
      cv_source: spread?.source ?? null,
    };
    if (detect <= allowed) {
      plans.push({
        ...base,
        impossible: `the rule allows ${allowed.toFixed(1)} ms (${((allowed / v) * 100).toFixed(1)} %; ${rule.max_increase_pct} % or its floor ${floor.text}): a ${(o.detect * 100).toFixed(1)} % change is within it and never fails`,
        window_s: null,
        replicates: null,
      });
      continue;
    }
    const target = (detect - allowed) / (z + zPower);
    const se1 = bootstrapSe(b, t.p, createRng(1), 400);
    // Samples of this metric per second of window at the spec's rate.
    const perS = (b.n / (o.baseline.load.window_s || 1)) * (o.rate / (o.baseline.load.offered_rate_per_s || o.rate));
    // An assumed CV was estimated from no runs (estimatedFrom ∞): no Student's t for it.
    const runs = spread?.estimatedFrom ?? Infinity;
    const tScale = Number.isFinite(runs) && runs > 1 ? studentQuantile(o.gate.confidence, runs - 1) / z : 1;
    const between2 = cv !== null ? 2 * (cv * v * tScale) ** 2 : 0;
    const sampling2 = (n: number, r: number) => (2 * se1 * se1 * b.n) / (r * n);
    const room = target * target - between2;
    const windowS = room > 0 ? Math.ceil((2 * se1 * se1 * b.n) / room / perS) : null;
    const n = perS * o.windowS;
    let replicates: number | null = null;
    for (let r = 1; r <= 100; r++) {
      if (sampling2(n, r) + between2 / r <= target * target) {
        replicates = r;
        break;
      }
    }
    plans.push({ ...base, impossible: null, window_s: windowS, replicates });
  }
  return plans;
}
