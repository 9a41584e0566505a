import type { Result } from '../result/types.js';
import { moments, percentileOf } from '../metrics/buckets.js';
import { percentileRise, riseReason } from '../metrics/rise.js';
import { confText, num, pctText } from '../numbers.js';
import type { JudgeContext } from './context.js';
import { detectableChange, detectableFall } from './detectable.js';
import { betweenRun, latencyNoise, noiseText, type LatencyNoise } from './noise.js';
import type { LatencyTarget } from '../metrics/definitions.js';
import { changeOf, outcome } from './outcome.js';
import { latencyTarget } from './targets.js';
import { latencyFloor } from './floors.js';
import type { GateSpec, LatencyIncreaseRule, LatencyKey, ThroughputDecreaseRule, ThroughputKey } from '../spec/gate-schema.js';
import type { RuleOutcome } from './types.js';

/*
 * Rules against the baseline. The test, the same for every rule: a regression is declared
 * only when the point change is beyond the allowed change AND so is the one-sided bound of
 * its noise interval at the gate's confidence (95 %: the lower bound of a rise, the upper
 * bound of a fall). A run drawn from the same distribution as the baseline therefore fails
 * a rule at most about 5 % of the time — in practice far less, as the bound must clear the
 * threshold, not zero — once the percentile has the tail samples metrics/samples.ts minSamples asks for.
 * The price: a true change just above the threshold is caught only once the interval clears
 * it; more samples or replicates make the gate sharper.
 */

/**
 * Percentile latency may rise at most max(pct·baseline, floor ms): the percentile-rise test
 * (metrics/rise.ts), its bootstrap interval widened by the between-run noise (gate/noise.ts).
 */
export function judgeLatencyIncrease(
  key: LatencyKey,
  rule: LatencyIncreaseRule,
  base: Result,
  cur: Result,
  ctx: JudgeContext,
): RuleOutcome {
  const t = latencyTarget(key);
  const id = `latency.${key}`;
  const { test, noise, floor } = latencyRise(key, rule, base, cur, ctx, id);
  const draft = {
    id,
    kind: 'regression' as const,
    metric: t.label,
    limit: `may rise ≤ ${rule.max_increase_pct} % or ${floor.text}, whichever is larger`,
    unit: 'ms' as const,
  };
  const none = { baseline: test.before, current: test.after, change: null, threshold: null, ci: null };
  if (test.status === 'no-samples')
    return outcome(
      { ...draft, ...none, reason: `no samples in the ${test.missing === 'after' ? 'current run' : 'baseline'}` },
      'inconclusive',
      rule,
    );
  const { change, threshold } = test;
  if (test.status === 'too-few') {
    const [nb, nc] = test.n;
    return outcome(
      {
        ...draft,
        ...none,
        change,
        threshold,
        reason: `too few samples for ${t.pct}: needs ≥ ${test.need} in each run (baseline ${nb}, current ${nc})`,
      },
      'inconclusive',
      rule,
    );
  }
  const { ci, before: bv } = test;
  const said = [noise().note, noiseText(noise().record, 'ms')].filter(Boolean).join('; ');
  const mdeAbs = detectableChange(threshold, change.abs - ci.lower, ctx.z);
  const mde = { abs: mdeAbs, rel: bv > 0 ? mdeAbs / bv : null, power: 0.8 };
  const reason = riseReason(test.rise, {
    moved: `${change.abs >= 0 ? 'rose' : 'fell'} ${num(change.abs, true)} ms (${change.rel === null ? 'n/a' : pctText(change.rel, true)}), allowed ${num(threshold, true)} ms`,
    bound: `the ${confText(ctx.confidence)} lower bound`,
    lower: `${num(ci.lower, true)} ms`,
    caught: `a rise of ≥ ${mde.rel === null ? `${num(mdeAbs)} ms` : `${pctText(mde.rel)} (${num(mdeAbs, true)} ms)`} would have been caught`,
    noise: said,
  });
  return outcome(
    {
      ...draft,
      baseline: bv,
      current: test.after,
      change,
      threshold,
      ci: { ...ci, confidence: ctx.confidence },
      reason,
      mde,
      noise: noise().record,
    },
    test.rise === 'beyond' ? 'fail' : 'pass',
    rule,
  );
}

/**
 * The rise test on the rule's percentile, its bootstrap widened by the between-run noise (read once
 * judged), against the rule's floor (floors.ts: the spec's max_increase_ms, or what the runs resolve).
 */
function latencyRise(key: LatencyKey, rule: LatencyIncreaseRule, base: Result, cur: Result, ctx: JudgeContext, id: string) {
  const t: LatencyTarget = latencyTarget(key);
  const b = ctx.buckets(base, t.histogram, 1000);
  const c = ctx.buckets(cur, t.histogram, 1000);
  const floor = latencyFloor(key, rule, base, cur, b ? percentileOf(b, t.p) : 0);
  let noise: LatencyNoise | undefined;
  const test = percentileRise({
    before: b,
    after: c,
    p: t.p,
    pct: rule.max_increase_pct,
    floorMs: floor.ms,
    minTail: ctx.minTail,
    confidence: ctx.confidence,
    iterations: ctx.iterations,
    rng: ctx.rng(id),
    widen: (bv, cv) => {
      const side = (s: string) => ctx.rng(`${id}/${s}`);
      noise = latencyNoise(ctx.noise, t, base, cur, { base: b!, cur: c! }, { base: bv, cur: cv }, side, ctx.confidence);
      return ctx.z * noise.se;
    },
  });
  return { test, noise: () => noise!, floor };
}

/**
 * Each throughput is a window total over the requests scheduled in it, divided by the window:
 * Σ tokens of ok requests, the ok count, the good count. `contribution` gives Σx and Σx² of
 * the per-request contributions x (0 for a request that failed or missed an SLO).
 */
export const THROUGHPUT: Record<
  ThroughputKey,
  {
    label: string;
    unit: 'tok/s' | 'req/s';
    spread: string;
    value(r: Result): number;
    contribution(r: Result, ctx: JudgeContext): { sum: number; sumSq: number };
  }
> = {
  output_tokens_per_s: {
    label: 'Output tokens/s',
    unit: 'tok/s',
    spread: 'throughput.output_tokens_per_s',
    value: (r) => r.throughput.output_tokens_per_s,
    contribution: (r, ctx) => {
      const b = ctx.buckets(r, 'outputTokens', 1);
      return b ? moments(b) : { sum: 0, sumSq: 0 };
    },
  },
  requests_per_s: {
    label: 'Completed requests/s',
    unit: 'req/s',
    spread: 'throughput.requests_per_s',
    value: (r) => r.throughput.requests_per_s,
    contribution: (r) => ({ sum: r.requests.window.by_class.ok, sumSq: r.requests.window.by_class.ok }),
  },
  goodput_per_s: {
    label: 'Goodput',
    unit: 'req/s',
    spread: 'goodput.rate_per_s',
    value: (r) => r.goodput.rate_per_s,
    contribution: (r) => ({ sum: r.goodput.requests, sumSq: r.goodput.requests }),
  },
};

/** The replicate-spread key and label of a throughput rule (for the stability check). */
export const throughputSpread = (key: ThroughputKey) => ({ key: THROUGHPUT[key].spread, label: THROUGHPUT[key].label });

/**
 * Relative standard error of a window total. The arrival schedule is seeded, so a comparable
 * run's window holds the same N requests as the baseline's; what varies is which of them
 * succeed and how long their outputs are. Resampling the N requests (the bootstrap of a mean)
 * gives SE = sd(x)/√N, in closed form.
 */
function totalRse({ sum, sumSq }: { sum: number; sumSq: number }, n: number): number {
  const mean = sum / n;
  return Math.sqrt(Math.max(0, sumSq / n - mean * mean) / n) / mean;
}

export function judgeThroughputDecrease(
  key: ThroughputKey,
  rule: ThroughputDecreaseRule,
  base: Result,
  cur: Result,
  ctx: JudgeContext,
): RuleOutcome {
  const m = THROUGHPUT[key];
  const draft = {
    id: `throughput.${key}`,
    kind: 'regression' as const,
    metric: m.label,
    limit: `may fall ≤ ${rule.max_decrease_pct} %`,
    unit: m.unit,
  };
  const bv = m.value(base);
  const cv = m.value(cur);
  const threshold = -(rule.max_decrease_pct / 100) * bv;
  const known = { baseline: bv, current: cv, change: changeOf(bv, cv), threshold, ci: null };
  if (base.requests.window.scheduled === 0 || cur.requests.window.scheduled === 0) {
    return outcome(
      {
        ...known,
        ...draft,
        change: null,
        reason: `no requests in the ${cur.requests.window.scheduled === 0 ? 'current' : 'baseline'} window`,
      },
      'inconclusive',
      rule,
    );
  }
  if (bv <= 0) return outcome({ ...draft, ...known, reason: 'the baseline has none to compare with' }, 'inconclusive', rule);
  if (cv <= 0)
    return outcome({ ...draft, ...known, reason: `none at all in the current run (baseline ${num(bv)} ${m.unit})` }, 'fail', rule);
  const rse = (r: Result) => totalRse(m.contribution(r, ctx), r.requests.window.scheduled);
  // Relative standard errors: the between-run spread of a ratio is its CV.
  const between = betweenRun(base, cur, m.spread, 1, 1, ctx.noise, ctx.confidence);
  const se = Math.hypot(rse(base), rse(cur), between.effectiveSe);
  const logRatio = Math.log(cv / bv);
  const rel = { lower: Math.exp(logRatio - ctx.z * se) - 1, upper: Math.exp(logRatio + ctx.z * se) - 1 };
  const change = known.change;
  const limit = -rule.max_decrease_pct / 100;
  const failed = change.rel! < limit && rel.upper < limit;
  const mdeRel = detectableFall(limit, se, ctx.z);
  const mde = { abs: mdeRel * bv, rel: mdeRel, power: 0.8 };
  const noise = { within_run: null, between_run_cv: between.cv, source: ['bootstrap' as const, ...between.sources] };
  const said = [between.note, noiseText(noise, m.unit)].filter(Boolean).join('; ');
  const caught = `a fall of ≥ ${pctText(-mdeRel)} would have been caught`;
  const moved = `${change.abs >= 0 ? 'rose' : 'fell'} ${pctText(change.rel!, true)} (${num(bv)} → ${num(cv)} ${m.unit}), allowed ${pctText(limit, true)}`;
  const reason = failed
    ? `${moved}; the ${confText(ctx.confidence)} upper bound ${pctText(rel.upper, true)} is beyond it too; ${said}`
    : change.rel! < limit
      ? `${moved}, but within noise: the ${confText(ctx.confidence)} upper bound is ${pctText(rel.upper, true)} — ${caught}; ${said}`
      : `${moved} — ${caught}; ${said}`;
  const ci = { lower: rel.lower * bv, upper: rel.upper * bv, confidence: ctx.confidence };
  return outcome({ ...draft, ...known, ci, reason, mde, noise }, failed ? 'fail' : 'pass', rule);
}

/**
 * The share of window requests that did not end ok may rise at most pp percentage points.
 * Noise: the Agresti–Caffo interval of a difference of proportions (add one success and one
 * failure to each run), which keeps its coverage at 0 errors, where Wald intervals collapse.
 */
export function judgeErrorRateIncrease(rule: GateSpec['error_rate'], base: Result, cur: Result, ctx: JudgeContext): RuleOutcome {
  const draft = {
    id: 'error_rate',
    kind: 'regression' as const,
    metric: 'Error rate',
    limit: `may rise ≤ ${rule.max_increase_pp} pp`,
    unit: 'fraction' as const,
  };
  const nb = base.requests.window.scheduled;
  const nc = cur.requests.window.scheduled;
  const xb = nb - base.requests.window.by_class.ok;
  const xc = nc - cur.requests.window.by_class.ok;
  const threshold = rule.max_increase_pp / 100;
  if (nb === 0 || nc === 0) {
    return outcome(
      {
        ...draft,
        baseline: nb ? xb / nb : null,
        current: nc ? xc / nc : null,
        change: null,
        threshold,
        ci: null,
        reason: `no requests in the ${nc === 0 ? 'current' : 'baseline'} window`,
      },
      'inconclusive',
      rule,
    );
  }
  const change = changeOf(xb / nb, xc / nc);
  const pb = (xb + 1) / (nb + 2);
  const pc = (xc + 1) / (nc + 2);
  const half = ctx.z * Math.sqrt((pb * (1 - pb)) / (nb + 2) + (pc * (1 - pc)) / (nc + 2));
  const ci = { lower: pc - pb - half, upper: pc - pb + half, confidence: ctx.confidence };
  const failed = change.abs > threshold && ci.lower > threshold;
  const mde = { abs: detectableChange(threshold, half, ctx.z), rel: null, power: 0.8 };
  const caught = `a rise of ≥ ${num(mde.abs * 100)} pp would have been caught`;
  const moved = `${pctText(xb / nb)} (${xb} of ${nb}) → ${pctText(xc / nc)} (${xc} of ${nc}): ${num(change.abs * 100, true)} pp, allowed +${rule.max_increase_pp} pp`;
  const reason = failed
    ? `${moved}; the ${confText(ctx.confidence)} lower bound ${num(ci.lower * 100, true)} pp is beyond it too`
    : change.abs > threshold
      ? `${moved}, but within noise: the ${confText(ctx.confidence)} lower bound is ${num(ci.lower * 100, true)} pp — ${caught}`
      : `${moved} — ${caught}`;
  return outcome({ ...draft, baseline: xb / nb, current: xc / nc, change, threshold, ci, reason, mde }, failed ? 'fail' : 'pass', rule);
}
