import { METRICS } from '../metrics/definitions.js';
import type { Rng } from '../rng.js';
import { SEGMENT_PERCENTILES, type SegmentPercentile, type Segments } from '../result/segments.js';
import type { Result } from '../result/types.js';
import { drawPercentile } from '../metrics/bootstrap.js';
import type { Buckets } from '../metrics/buckets.js';
import type { CalibrationFile } from './calibration.js';
import type { GateSpec } from '../spec/gate-schema.js';
import { maxOf, minOf, num, pctText, round3 } from '../numbers.js';
import { normalQuantile, studentQuantile } from '../metrics/stats.js';
import type { CheckOutcome, NoiseSource, RuleNoise, RuleOutcome } from './types.js';

/*
 * The noise model beyond the bootstrap. The bootstrap of two histograms measures sampling noise
 * within each run as if its requests were independent draws. Two things it cannot see:
 *
 * 1. Slow drift within a run (a warming cache, a neighbour on the machine): requests close in
 *    time share it, so the run's percentile varies more than independent sampling says. Batch
 *    means estimate the real variance: cut the window into K slices (result.segments), take the
 *    percentile q_k of each; the whole run's percentile has variance ≈ var(q_k) / K, drift
 *    included. What exceeds the bootstrap's own variance is drift:
 *        se_drift² = max(0, var(q_k)/K − se_boot²).
 *    (Independent requests make var(q_k) ≈ K·se_boot², leaving ≈ 0.)
 *
 * 2. Between-run variance (the engine's state, the machine): a whole run is faster or slower
 *    than the next by a factor no within-run statistic sees — ±15–35 % in the slowdown bench's tables (docs/benchmarks.md). Its size is
 *    a coefficient of variation measured across runs: a replicated result carries its own
 *    (result.replicates.cv), a calibration file carries one for the deployment. A side merged from
 *    R replicates is off by cv·value/√R; a single run (R = 1) by the full cv·value — so a
 *    single-run current judged against a replicated baseline gets the baseline's spread too.
 *    Where nothing measured it (one run a side, no calibration), a latency percentile takes the
 *    assumed CV (gate.noise.assumed_cv): zero would claim two single runs of a real engine agree
 *    to within their sampling noise, which they do not.
 *
 * Both widen the bootstrap interval in quadrature (independent errors), each side separately.
 */

export interface NoiseModel {
  /** Drift from segments (gate.noise.segments). */
  segments: boolean;
  /** Between-run CV from replicates or calibration (gate.noise.between_run). */
  betweenRun: boolean;
  calibration: CalibrationFile | null;
  /** Latency percentiles' between-run CV where nothing measured one (gate.noise.assumed_cv; 0: none). */
  assumedCv: number;
}

export const NO_EXTRA_NOISE: NoiseModel = { segments: false, betweenRun: false, calibration: null, assumedCv: 0 };

/** The noise model a gate section asks for, with the calibration file if one was given. */
export function noiseModelOf(gate: GateSpec, calibration: CalibrationFile | null): NoiseModel {
  return { segments: gate.noise.segments, betweenRun: gate.noise.between_run, calibration, assumedCv: gate.noise.assumed_cv };
}

const replicatesOf = (r: Result) => r.replicates;

export interface SideSpread {
  cv: number;
  /** Runs merged into this side. */
  count: number;
  /** Runs the CV was estimated from: its degrees of freedom are runs − 1. */
  estimatedFrom: number;
  source: 'replicates' | 'calibration' | 'assumed';
  /** Borrowed from the other side's replicates (this side is one run). */
  borrowed: boolean;
}

/**
 * The between-run CV that applies to one side: its own replicates' spread or the calibration's,
 * whichever was estimated from more runs (the more precise); failing both, the other side's
 * replicates' (this side is then one run of that spread); failing that, for a latency percentile
 * (`assume`), the assumed CV: one run a side has no spread of its own, yet it drifts.
 */
export function sideSpread(r: Result, other: Result | null, key: string, model: NoiseModel, assume: boolean): SideSpread | null {
  if (!model.betweenRun) return null;
  const own = replicatesOf(r);
  const count = own?.count ?? 1;
  const cal = model.calibration?.cv[key];
  const calRuns = model.calibration?.replicates ?? 0;
  if (own?.cv[key] !== undefined && !(cal !== undefined && calRuns > own.count))
    return { cv: own.cv[key], count, estimatedFrom: own.count, source: 'replicates', borrowed: false };
  if (cal !== undefined) return { cv: cal, count, estimatedFrom: calRuns, source: 'calibration', borrowed: false };
  const theirs = other ? replicatesOf(other) : undefined;
  if (theirs?.cv[key] !== undefined)
    return { cv: theirs.cv[key], count, estimatedFrom: theirs.count, source: 'replicates', borrowed: true };
  // Not estimated from runs: no Student's t for it (estimatedFrom ∞).
  if (assume && model.assumedCv > 0) return { cv: model.assumedCv, count, estimatedFrom: Infinity, source: 'assumed', borrowed: false };
  return null;
}

export interface BetweenRun {
  /** Standard error of the difference from between-run spread, in the values' unit. */
  se: number;
  /**
   * The same, scaled by t_ν / z: the spread is estimated from few runs (ν = runs − 1, the fewest
   * of the sides), so its share of the interval takes Student's t; scaled so, it adds in
   * quadrature to the normal-theory parts under one z.
   */
  effectiveSe: number;
  /** The larger CV applied, null when none. */
  cv: number | null;
  sources: NoiseSource[];
  /** Said in the reason when a side borrowed the other's spread. */
  note: string | null;
}

/**
 * Between-run standard error of (current − baseline) for a metric `key` with these values.
 * `assume`: a latency percentile, which takes the assumed CV where nothing measured one (a
 * throughput's window total follows the seeded schedule, not the engine's speed, below saturation).
 */
export function betweenRun(
  base: Result,
  cur: Result,
  key: string,
  bv: number,
  cv: number,
  model: NoiseModel,
  confidence: number,
  assume = false,
): BetweenRun {
  const b = sideSpread(base, cur, key, model, assume);
  const c = sideSpread(cur, base, key, model, assume);
  const part = (s: SideSpread | null, v: number) => (s ? (s.cv * Math.abs(v)) / Math.sqrt(s.count) : 0);
  const used = [b, c].filter((s): s is SideSpread => s !== null);
  const note = c?.borrowed
    ? `the current run is one replicate, judged with the baseline's between-run CV ${pctText(c.cv)} (${replicatesOf(base)!.count} replicates) on both sides`
    : b?.borrowed
      ? `the baseline is one run, judged with the current run's between-run CV ${pctText(b.cv)} on both sides`
      : null;
  const se = Math.hypot(part(b, bv), part(c, cv));
  const df = used.length > 0 ? minOf(used.map((s) => s.estimatedFrom - 1)) : Infinity;
  return {
    se,
    effectiveSe: se * (studentQuantile(confidence, df) / normalQuantile(confidence)),
    cv: used.length > 0 ? maxOf(used.map((s) => s.cv)) : null,
    sources: [...new Set(used.map((s) => s.source))],
    note,
  };
}

/** Standard deviation of the bootstrap distribution of one run's percentile p. */
export function bootstrapSe(b: Buckets, p: number, rng: Rng, draws = 200): number {
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < draws; i++) {
    const x = drawPercentile(b, p, rng);
    sum += x;
    sumSq += x * x;
  }
  const mean = sum / draws;
  return Math.sqrt(Math.max(0, sumSq / draws - mean * mean) * (draws / (draws - 1)));
}

/** A result's segments section keeps the metrics the table slices (metrics/definitions.ts `segments`), under their keys. */
const SEGMENTED: ReadonlySet<string> = new Set(METRICS.filter((m) => m.segments).map((m) => m.key));

/**
 * Drift standard error of one run's percentile (see the top of this file), or null where the
 * run has no usable slices: no segments section, a metric or percentile it does not slice, or
 * fewer than 4 slices holding ≥ 2 samples above the percentile each.
 */
export function driftSe(r: Result, metric: string, pct: string, b: Buckets, p: number, rng: Rng): number | null {
  const name = SEGMENTED.has(metric) ? (metric as keyof Omit<Segments, 'count' | 'segment_s'>) : undefined;
  if (!r.segments || !name || !(SEGMENT_PERCENTILES as readonly string[]).includes(pct)) return null;
  const s = r.segments[name];
  const need = Math.ceil(2 / (1 - p / 100) - 1e-9);
  const values = s[pct as SegmentPercentile].filter((v, i): v is number => v !== null && s.n[i] >= need);
  if (values.length < 4) return null;
  const mean = values.reduce((a, v) => a + v, 0) / values.length;
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1);
  const boot = bootstrapSe(b, p, rng);
  return Math.sqrt(Math.max(0, variance / values.length - boot * boot));
}

export interface LatencyNoise {
  /** Extra standard error of the difference, beyond the bootstrap, in ms (between-run part t-scaled, see BetweenRun). */
  se: number;
  record: RuleNoise;
  note: string | null;
}

/** The noise a latency rule adds to its bootstrap interval: drift of both runs and between-run spread. */
export function latencyNoise(
  model: NoiseModel,
  t: { metric: string; pct: string; p: number },
  base: Result,
  cur: Result,
  buckets: { base: Buckets; cur: Buckets },
  values: { base: number; cur: number },
  rng: (side: string) => Rng,
  confidence: number,
): LatencyNoise {
  const drift = model.segments
    ? [driftSe(base, t.metric, t.pct, buckets.base, t.p, rng('baseline')), driftSe(cur, t.metric, t.pct, buckets.cur, t.p, rng('current'))]
    : [null, null];
  const within = drift.every((d) => d === null) ? null : Math.hypot(drift[0] ?? 0, drift[1] ?? 0);
  const between = betweenRun(base, cur, `${t.metric}.${t.pct}`, values.base, values.cur, model, confidence, true);
  const sources: NoiseSource[] = ['bootstrap', ...(within !== null ? (['segments'] as const) : []), ...between.sources];
  return {
    se: Math.hypot(within ?? 0, between.effectiveSe),
    record: { within_run: within === null ? null : round3(within), between_run_cv: between.cv, source: sources },
    note: between.note,
  };
}

/**
 * docs/methodology.md ("Replicates and the noise limit"): replicate sets whose CV exceeds ~10 % mean the environment is unstable — no
 * comparison of that metric on it can be trusted, and the rules on it say so with the figures.
 * Judged per metric a regression rule reads, for each replicated side and the calibration: an
 * unstable metric makes its own rules inconclusive and leaves the others judged. Why per metric:
 * a deployment drifts unevenly across metrics — in four A/A runs of a llama.cpp server, TPOT p50
 * spread with a CV of ~15 % and TTFT p95 of ~19 % (queueing and caches move the tails more) — so
 * one metric over the limit says nothing against another whose own spread is within it and
 * whose interval already carries that spread. The verdict stays inconclusive unless a rule on a
 * stable metric (or on error counts) fails.
 *
 * A CV estimated from n runs is itself noisy: from 3 runs of a deployment whose true CV is
 * 10 %, the estimate reads above 10 % about half the time. So a metric is called unstable
 * when its CV exceeds the limit at the gate's confidence: (n − 1)·s²/σ² is χ²(n − 1), so the
 * one-sided lower bound of σ is s·√((n − 1) / χ²_{confidence}(n − 1)) — 0.58·s for 3 runs,
 * 0.65·s for 5, 0.73·s for 10 at 95 %.
 */
export function cvLowerBound(cv: number, runs: number, confidence: number): number {
  const df = runs - 1;
  return df > 0 ? cv * Math.sqrt(df / chiSquareQuantile(confidence, df)) : 0;
}

/** χ²_ν quantile by the Wilson–Hilferty cube-root normal approximation (within 1 % for ν ≥ 2 at 95 %). */
function chiSquareQuantile(p: number, df: number): number {
  const z = normalQuantile(p);
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

export interface Stability {
  /** One check per replicated side and the calibration: which metrics were over the limit. */
  checks: CheckOutcome[];
  /** Spread key ("ttft_ms.p95") → why it is unstable, for its rules' reasons. */
  unstable: Map<string, string>;
}

export function stability(
  base: Result | null,
  cur: Result,
  keys: { key: string; label: string }[],
  model: NoiseModel,
  maxCv: number,
  confidence: number,
): Stability {
  const checks: CheckOutcome[] = [];
  const unstable = new Map<string, string>();
  const judge = (scope: CheckOutcome['scope'], cvs: Record<string, number>, count: number) => {
    const over = keys.filter((k) => cvLowerBound(cvs[k.key] ?? 0, count, confidence) > maxCv);
    const known = keys.filter((k) => cvs[k.key] !== undefined);
    if (known.length === 0) return;
    const worst = known.reduce((a, k) => ((cvs[k.key] ?? 0) > (cvs[a.key] ?? 0) ? k : a));
    const cvText = (k: { key: string }) =>
      `${pctText(cvs[k.key])} (≥ ${pctText(cvLowerBound(cvs[k.key], count, confidence))} at ${pctText(confidence)} confidence)`;
    const figure = (k: { key: string; label: string }) => `${k.label} ${cvText(k)}`;
    const runs = scope === 'calibration' ? `${count} calibration runs` : `${count} ${scope} runs`;
    for (const k of over)
      if (!unstable.has(k.key))
        unstable.set(
          k.key,
          `the environment is unstable for ${k.label}: between-run CV ${cvText(k)} across ${runs} exceeds ${pctText(maxCv)} (gate.max_cv)`,
        );
    checks.push({
      scope,
      name: 'between_run_cv',
      ok: over.length === 0,
      effect: 'rules',
      message:
        over.length > 0
          ? `the environment is unstable: between-run CV ${over.map(figure).join(', ')} across ${count} runs exceeds ${pctText(maxCv)} (gate.max_cv); the rules on ${over.length === 1 ? 'that metric are' : 'those metrics are'} inconclusive`
          : `between-run CV within ${pctText(maxCv)} at ${pctText(confidence)} confidence for every judged metric across ${count} runs (largest ${worst.label} ${pctText(cvs[worst.key])})`,
    });
  };
  if (model.betweenRun) {
    for (const [scope, r] of [
      ['baseline', base],
      ['current', cur],
    ] as const) {
      const rep = r ? replicatesOf(r) : undefined;
      if (rep) judge(scope, rep.cv, rep.count);
    }
    if (model.calibration) judge('calibration', model.calibration.cv, model.calibration.replicates);
  }
  return { checks, unstable };
}

/** The regression rules on an unstable metric, inconclusive with the figures; `keyOf` names a rule's spread key (null: none). */
export function applyStability(
  rules: RuleOutcome[],
  unstable: Map<string, string>,
  keyOf: (r: RuleOutcome) => string | null,
): RuleOutcome[] {
  if (unstable.size === 0) return rules;
  return rules.map((r) => {
    const key = r.kind === 'regression' ? keyOf(r) : null;
    const why = key === null ? undefined : unstable.get(key);
    if (why === undefined || r.status === 'inconclusive') return r;
    return { ...r, status: 'inconclusive', reason: `${why}; measured: ${r.reason}` };
  });
}

/** "…; noise: bootstrap + segments (drift ±1.2 ms) + calibration (CV 8.0 %)" for a reason. */
export function noiseText(n: RuleNoise, unit: string): string {
  const parts = n.source.map((s) =>
    s === 'segments' && n.within_run !== null
      ? n.within_run > 0
        ? `segments (drift ±${num(n.within_run)} ${unit})`
        : 'segments (no drift beyond sampling)'
      : (s === 'replicates' || s === 'calibration') && n.between_run_cv !== null
        ? `${s} (CV ${pctText(n.between_run_cv)})`
        : s === 'assumed' && n.between_run_cv !== null
          ? `assumed between-run CV ${pctText(n.between_run_cv)} (gate.noise.assumed_cv: no replicates or calibration measured it)`
          : s,
  );
  return `noise: ${parts.join(' + ')}`;
}
