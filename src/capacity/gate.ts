import { changeOf, outcome } from '../gate/outcome.js';
import { confText, num, pctText, sig4 } from '../numbers.js';
import { normalQuantile, wilson } from '../metrics/stats.js';
import type { CheckOutcome, GateReport, RuleOutcome } from '../gate/types.js';
import { decideVerdict } from '../gate/verdict.js';
import type { CapacityRule } from '../spec/sweep-schema.js';
import { loadOf, sweepMode } from './analysis.js';
import type { SweepDocument } from './document.js';
import type { SweepPoint } from './types.js';

/*
 * Release gating on capacity: a sweep against a baseline sweep, with the gate's logic
 * (src/gate): a regression is declared only when the point estimate has moved beyond the
 * allowed change AND so has the bound that gives the current sweep every benefit of the
 * doubt; a sweep whose points (below saturation) were not valid, or two sweeps that are not
 * the same experiment, give "inconclusive". Both sweeps' bounds come from what a sweep
 * can and cannot resolve:
 *   - capacity at SLO lies in [passing, failing): the current sweep's most favourable reading
 *     is its first point above its passing one that fails the target beyond noise (the Wilson
 *     upper bound of its goodput fraction < target), so a point that missed the target by
 *     chance does not count against it. Fail when that bound < (1 − X %) · the baseline's
 *     passing load. (The baseline's passing point is taken as measured: asking it to pass
 *     beyond noise too would need hundreds of samples per point before a 99 % target could
 *     ever fail anything.)
 *   - the knee lies in [knee, next measured point): fail when the current's next point is below
 *     (1 − X %) of the baseline's knee.
 *   - saturation throughput: the plateau's completions are Poisson counts, so X = n / T has
 *     SE √n / T; fail when the one-sided upper bound of the fall is beyond X % of the baseline.
 */

const NOISE_METHOD =
  'capacity at SLO: bracket between passing and failing points, each decided beyond noise (Wilson bounds of the goodput fraction); knee: bracket to the next measured point; saturation: Poisson count noise of the plateau. A regression needs the favourable bound beyond the allowed change.';

type Bounds = { value: number | null; favourable: number | null; unfavourable: number | null; why: string };

/** The sweep's curve, lightest first (the auto probe measures S only). */
function curve(d: SweepDocument): SweepPoint[] {
  const mode = sweepMode(d.points);
  return d.points.filter((p) => p.mode === mode).sort((a, b) => loadOf(a) - loadOf(b));
}

/** Wilson bounds of a point's goodput fraction at one-sided z. */
function goodputBounds(p: SweepPoint, z: number): { lower: number; upper: number } | null {
  const n = p.result.requests.window.scheduled;
  return n > 0 ? wilson(p.result.goodput.requests, n, z) : null;
}

/** Capacity at SLO of one sweep: its value, the most favourable upper end and the least favourable lower end. */
function capacityBounds(d: SweepDocument, z: number): Bounds {
  const target = d.analysis.capacity_at_slo.target;
  const c = curve(d);
  // No passing point at all: capacity is below the lightest point, read as 0.
  const a = d.analysis.capacity_at_slo;
  const value = a.passing_load ?? (a.failing_load !== null ? 0 : null);
  // Favourable: capacity is below the first point that fails beyond noise; without one, unbounded.
  const clearFail = c.find((p) => loadOf(p) > (value ?? 0) && (goodputBounds(p, z)?.upper ?? 1) < target);
  return {
    value,
    favourable: clearFail ? loadOf(clearFail) : Infinity,
    unfavourable: value,
    why: `passing ${value ?? 'none'}, first clear fail ${clearFail ? loadOf(clearFail) : 'none'}`,
  };
}

function kneeBounds(d: SweepDocument): Bounds {
  const k = d.analysis.knee;
  const value = k.point === null ? (k.next_load === null ? null : 0) : loadOf(d.points[k.point]);
  return {
    value,
    favourable: k.next_load ?? Infinity,
    unfavourable: value,
    why: `knee ${value ?? 'none'}, next point ${k.next_load ?? 'none'}`,
  };
}

/** The plateau's completed requests and its window, for the Poisson noise of X_max. */
function plateauCount(d: SweepDocument): { n: number; seconds: number } {
  const pts = d.analysis.saturation.points.map((i) => d.points[i].result);
  return {
    n: pts.reduce((a, r) => a + r.throughput.requests_per_s * r.load.window_s, 0),
    seconds: pts.reduce((a, r) => a + r.load.window_s, 0),
  };
}

/** "may fall ≤ X %": fail when value and favourable bound are both below (1 − X) · baseline. */
function judgeDecrease(
  id: string,
  metric: string,
  unit: 'req/s',
  rule: CapacityRule,
  base: Bounds,
  cur: Bounds,
  confidence: number,
): RuleOutcome {
  const draft = { id, kind: 'regression' as const, metric, limit: `may fall ≤ ${rule.max_decrease_pct} %`, unit };
  if (base.value === null || cur.value === null || base.unfavourable === null)
    return outcome(
      {
        ...draft,
        baseline: base.value,
        current: cur.value,
        change: null,
        threshold: null,
        ci: null,
        reason: `not found in the ${base.value === null ? 'baseline' : 'current'} sweep`,
      },
      'inconclusive',
      rule,
    );
  const floor = (1 - rule.max_decrease_pct / 100) * base.value;
  const floorUnfavourable = (1 - rule.max_decrease_pct / 100) * base.unfavourable;
  const change = changeOf(base.value, cur.value);
  const threshold = -(rule.max_decrease_pct / 100) * base.value;
  const ci = { lower: cur.value - base.value, upper: (cur.favourable ?? Infinity) - base.unfavourable, confidence };
  const moved = `${change.abs >= 0 ? 'rose' : 'fell'} from ${sig4(base.value)} to ${sig4(cur.value)} ${unit}${change.rel === null ? '' : ` (${pctText(change.rel, true)})`}, allowed ${pctText(-rule.max_decrease_pct / 100, true)}`;
  const failed = cur.value < floor && (cur.favourable ?? Infinity) < floorUnfavourable;
  const reason = failed
    ? `${moved}; even the current's favourable bound (${cur.why}) is below ${sig4(floorUnfavourable)} ${unit}`
    : cur.value < floor
      ? `${moved}, but within what the sweeps resolve (current ${cur.why}; baseline ${base.why})`
      : moved;
  return outcome(
    { ...draft, baseline: base.value, current: cur.value, change, threshold, ci: Number.isFinite(ci.upper) ? ci : null, reason },
    failed ? 'fail' : 'pass',
    rule,
  );
}

function judgeSaturation(rule: CapacityRule, base: SweepDocument, cur: SweepDocument, z: number, confidence: number): RuleOutcome {
  const draft = {
    id: 'capacity.saturation',
    kind: 'regression' as const,
    metric: 'saturation throughput',
    limit: `may fall ≤ ${rule.max_decrease_pct} %`,
    unit: 'req/s' as const,
  };
  const b = base.analysis.saturation;
  const c = cur.analysis.saturation;
  if (!b.reached || !c.reached || b.requests_per_s === null || c.requests_per_s === null)
    return outcome(
      {
        ...draft,
        baseline: b.requests_per_s,
        current: c.requests_per_s,
        change: null,
        threshold: null,
        ci: null,
        reason: `saturation not reached in the ${!b.reached ? 'baseline' : 'current'} sweep: its plateau is only a lower bound`,
      },
      'inconclusive',
      rule,
    );
  const se = (d: SweepDocument) => {
    const { n, seconds } = plateauCount(d);
    return seconds > 0 ? Math.sqrt(Math.max(n, 1)) / seconds : 0;
  };
  const change = changeOf(b.requests_per_s, c.requests_per_s);
  const threshold = -(rule.max_decrease_pct / 100) * b.requests_per_s;
  const half = z * Math.hypot(se(base), se(cur));
  const ci = { lower: change.abs - half, upper: change.abs + half, confidence };
  const failed = change.abs < threshold && ci.upper < threshold;
  const moved = `${change.abs >= 0 ? 'rose' : 'fell'} ${num(change.abs, true)} req/s (${change.rel === null ? 'n/a' : pctText(change.rel, true)}), allowed ${num(threshold, true)} req/s`;
  const reason = failed
    ? `${moved}; the ${confText(confidence)} upper bound ${num(ci.upper, true)} req/s is beyond it too`
    : change.abs < threshold
      ? `${moved}, but within noise: the ${confText(confidence)} upper bound is ${num(ci.upper, true)} req/s`
      : moved;
  return outcome(
    { ...draft, baseline: b.requests_per_s, current: c.requests_per_s, change, threshold, ci, reason },
    failed ? 'fail' : 'pass',
    rule,
  );
}

/** The part of a sweep's spec that decides the experiment: what is sent and what counts as good. */
function experiment(d: SweepDocument): string {
  const { rate: _r, concurrency: _c, mode: _m, ...load } = d.spec.load;
  const s = d.spec.sweep!;
  return JSON.stringify({
    api: d.spec.target.api,
    workload: d.spec.workload,
    load,
    slo: d.spec.slo,
    metric: s.metric,
    target: s.slo_target,
    mode: d.analysis.mode,
  });
}

/**
 * Validity of a sweep for gating: every check of the points below saturation (past it the server
 * is overloaded on purpose and its checks do not speak to the generator), scoped to the sweep;
 * the point is named in the message. An interrupted sweep is one incomplete experiment.
 */
function sweepChecks(d: SweepDocument, scope: 'baseline' | 'current'): CheckOutcome[] {
  const checks: CheckOutcome[] = d.analysis.points
    .filter((p) => !p.saturated)
    .flatMap((p) =>
      d.points[p.index].result.validity.checks.map((c) => ({
        scope,
        name: c.name,
        ok: c.ok,
        message: `point ${p.index + 1} (${sig4(p.load)}): ${c.message}`,
      })),
    );
  checks.push({
    scope,
    name: 'completed',
    ok: !d.interrupted,
    message: d.interrupted ? `the sweep was interrupted (${d.stopped_because})` : 'the sweep completed its plan',
  });
  return checks.filter((c) => !c.ok || c.name === 'completed');
}

/** Judges a sweep against a baseline sweep under the current spec's sweep.gate. Pure. */
export function compareSweeps(baseline: SweepDocument, current: SweepDocument): GateReport {
  const rules = current.spec.sweep!.gate;
  const confidence = current.spec.gate.confidence;
  const z = normalQuantile(confidence);
  const outcomes: RuleOutcome[] = [];
  if (rules.capacity_at_slo.enabled)
    outcomes.push(
      judgeDecrease(
        'capacity.capacity_at_slo',
        'capacity at SLO',
        'req/s',
        rules.capacity_at_slo,
        capacityBounds(baseline, z),
        capacityBounds(current, z),
        confidence,
      ),
    );
  if (rules.knee.enabled)
    outcomes.push(judgeDecrease('capacity.knee', 'knee', 'req/s', rules.knee, kneeBounds(baseline), kneeBounds(current), confidence));
  if (rules.saturation.enabled) outcomes.push(judgeSaturation(rules.saturation, baseline, current, z, confidence));
  const same = experiment(baseline) === experiment(current);
  const checks: CheckOutcome[] = [
    ...sweepChecks(baseline, 'baseline'),
    ...sweepChecks(current, 'current'),
    {
      scope: 'comparability',
      name: 'same_experiment',
      ok: same,
      message: same
        ? 'both sweeps send the same workload in the same load model and judge goodput by the same SLO'
        : 'the sweeps differ in workload, load model, SLO or sweep metric: their capacities are not comparable',
    },
  ];
  const { verdict, reasons } = decideVerdict(outcomes, checks, true);
  return {
    verdict,
    reasons,
    has_baseline: true,
    rules: outcomes,
    checks,
    noise: { method: NOISE_METHOD, confidence, iterations: 0, seed: 0 },
  };
}
