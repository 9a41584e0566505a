import type { Result } from '../result/types.js';
import type { GateReport, RuleOutcome } from './types.js';

/** Absolute SLO rules checked on every run, baseline or not. */
const ABSOLUTE_RULES = [
  { rule: 'goodput.fraction ≥ 0.99', get: (r: Result) => r.goodput.fraction, ok: (v: number) => v >= 0.99 },
  { rule: 'rates.http_5xx ≤ 0.01', get: (r: Result) => (r.requests.window.scheduled > 0 ? r.rates.http_5xx : null), ok: (v: number) => v <= 0.01 },
];

/**
 * The verdict: inconclusive when the run cannot be trusted (a validity check failed),
 * else fail when any rule fails, else pass. A rule with no data never passes.
 */
export function evaluate(result: Result): GateReport {
  const rules: RuleOutcome[] = ABSOLUTE_RULES.map(({ rule, get, ok }) => {
    const current = get(result);
    if (current === null) return { rule, status: 'inconclusive', current, baseline: null, reason: 'no samples' };
    return { rule, status: ok(current) ? 'pass' : 'fail', current, baseline: null, reason: ok(current) ? 'met' : 'violated' };
  });
  const invalid = result.validity.checks.filter((c) => !c.ok);
  if (invalid.length > 0) return { verdict: 'inconclusive', reasons: invalid.map((c) => `${c.name}: ${c.message}`), rules };
  const failed = rules.filter((r) => r.status !== 'pass');
  if (failed.some((r) => r.status === 'inconclusive')) return { verdict: 'inconclusive', reasons: failed.map((r) => `${r.rule}: ${r.reason}`), rules };
  if (failed.length > 0) return { verdict: 'fail', reasons: failed.map((r) => `${r.rule}: ${r.reason} (${r.current})`), rules };
  return { verdict: 'pass', reasons: ['every rule met and the run is valid'], rules };
}
