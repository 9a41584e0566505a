import type { Result } from '../result/types.js';
import { percentileOf } from '../metrics/buckets.js';
import { num, pctText } from '../numbers.js';
import type { JudgeContext } from './context.js';
import { changeOf, outcome } from './outcome.js';
import { minSamples } from '../metrics/samples.js';
import { latencyTarget } from './targets.js';
import type { GateSpec, LatencyKey, LatencyLimitRule, RuleFlags } from '../spec/gate-schema.js';
import { wilson } from '../metrics/stats.js';
import type { RuleOutcome } from './types.js';

/*
 * Absolute rules judge what this run delivered, with or without a baseline: the SLO is about
 * what users saw, so the observed value is compared with the limit. What guards against noise
 * here is the sample requirement: a percentile needs its tail samples (metrics/samples.ts minSamples) and a
 * rate limit needs enough requests that one request cannot breach it alone. The baseline's
 * value, when there is one, is shown for context only.
 */

export function judgeLatencyLimit(
  key: LatencyKey,
  rule: LatencyLimitRule & { max_ms: number },
  base: Result | null,
  cur: Result,
  ctx: JudgeContext,
): RuleOutcome {
  const t = latencyTarget(key);
  const draft = {
    id: `slo.${key}`,
    kind: 'slo' as const,
    metric: t.label,
    limit: `≤ ${num(rule.max_ms)} ms`,
    unit: 'ms' as const,
    threshold: rule.max_ms,
    ci: null,
  };
  const b = base ? ctx.buckets(base, t.histogram, 1000) : null;
  const c = ctx.buckets(cur, t.histogram, 1000);
  const bv = b ? percentileOf(b, t.p) : null;
  if (!c)
    return outcome({ ...draft, baseline: bv, current: null, change: null, reason: 'no samples in the current run' }, 'inconclusive', rule);
  const cv = percentileOf(c, t.p);
  const known = { ...draft, baseline: bv, current: cv, change: bv === null ? null : changeOf(bv, cv) };
  const need = minSamples(t.p, ctx.minTail);
  if (c.n < need) return outcome({ ...known, reason: `too few samples for ${t.pct}: needs ≥ ${need}, has ${c.n}` }, 'inconclusive', rule);
  const ok = cv <= rule.max_ms;
  return outcome(
    { ...known, reason: `${num(cv)} ms ${ok ? 'is within' : 'exceeds'} the ${num(rule.max_ms)} ms limit (${c.n} samples)` },
    ok ? 'pass' : 'fail',
    rule,
  );
}

/**
 * A share x/n (e.g. 5xx responses among window requests) must stay ≤ max. Judged once n ≥ 1/max,
 * so a single request cannot decide it; below that only a breach certain at the gate's
 * confidence (Wilson lower bound above max) fails.
 */
function judgeShare(x: number, n: number, max: number, z: number): { status: 'pass' | 'fail' | 'inconclusive'; enough: number } {
  const enough = max > 0 ? Math.ceil(1 / max - 1e-9) : 1;
  if (n === 0) return { status: 'inconclusive', enough };
  if (x / n > max) return { status: n >= enough || wilson(x, n, z).lower > max ? 'fail' : 'inconclusive', enough };
  return { status: n >= enough ? 'pass' : 'inconclusive', enough };
}

/** 5xx and 429 rates of the window (each ≤ max) and the goodput fraction (≥ min). */
export function judgeRateLimits(slo: GateSpec['slo'], base: Result | null, cur: Result, ctx: JudgeContext): RuleOutcome[] {
  const n = cur.requests.window.scheduled;
  const share = (r: Result | null, x: (r: Result) => number) =>
    r && r.requests.window.scheduled > 0 ? x(r) / r.requests.window.scheduled : null;
  const rules: { id: string; metric: string; flags: RuleFlags; bad: (r: Result) => number; max: number; good?: true }[] = [
    {
      id: 'slo.http_5xx_rate',
      metric: '5xx rate',
      flags: slo.http_5xx_rate,
      bad: (r) => r.requests.window.by_class.http_5xx,
      max: slo.http_5xx_rate.max,
    },
    {
      id: 'slo.http_429_rate',
      metric: '429 rate',
      flags: slo.http_429_rate,
      bad: (r) => r.requests.window.by_class.http_429,
      max: slo.http_429_rate.max,
    },
    {
      id: 'slo.goodput_fraction',
      metric: 'Goodput',
      flags: slo.goodput_fraction,
      bad: (r) => r.requests.window.scheduled - r.goodput.requests,
      max: 1 - slo.goodput_fraction.min,
      good: true,
    },
  ];
  return rules
    .filter((r) => r.flags.enabled)
    .map(({ id, metric, flags, bad, max, good }) => {
      // Goodput is judged as its complement (requests that missed an SLO or failed) and shown as itself.
      const shown = (v: number | null) => (v === null || !good ? v : 1 - v);
      const bv = shown(share(base, bad));
      const cv = shown(share(cur, bad));
      const limitValue = good ? 1 - max : max;
      const draft = {
        id,
        kind: 'slo' as const,
        metric,
        limit: `${good ? '≥' : '≤'} ${pctText(limitValue)}`,
        unit: 'fraction' as const,
        baseline: bv,
        current: cv,
        change: bv === null || cv === null ? null : changeOf(bv, cv),
        threshold: limitValue,
        ci: null,
      };
      const x = n > 0 ? bad(cur) : 0;
      const { status, enough } = judgeShare(x, n, max, ctx.z);
      const counted = good ? `${n - x} of ${n} requests met every SLO` : `${x} of ${n} requests`;
      const reason =
        n === 0
          ? 'no requests in the current window'
          : status === 'inconclusive'
            ? `${pctText(cv!)} (${counted}): too few requests to judge a ${pctText(limitValue)} limit (needs ≥ ${enough})`
            : `${pctText(cv!)} (${counted}) ${status === 'pass' ? 'meets' : 'breaks'} the ${good ? 'minimum' : 'limit'} of ${pctText(limitValue)}`;
      return outcome({ ...draft, reason }, status, flags);
    });
}
