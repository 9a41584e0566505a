import type { RuleFlags } from '../spec/gate-schema.js';
import type { RuleOutcome, RuleStatus } from './types.js';

type Draft = Omit<RuleOutcome, 'rule' | 'status' | 'warn_only'>;

/** Completes an outcome: a violated warn_only rule reports `warn`, which the verdict ignores. */
export function outcome(d: Draft, status: Exclude<RuleStatus, 'warn'>, flags: RuleFlags): RuleOutcome {
  return {
    ...d,
    rule: `${d.metric} ${d.limit}`,
    status: status === 'fail' && flags.warn_only ? 'warn' : status,
    warn_only: flags.warn_only,
  };
}

/** current − baseline, absolute and relative (null when the baseline is 0). */
export const changeOf = (baseline: number, current: number) => ({
  abs: current - baseline,
  rel: baseline !== 0 ? (current - baseline) / baseline : null,
});
