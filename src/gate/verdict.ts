import type { CheckOutcome, RuleOutcome, Verdict } from './types.js';

/**
 * Validity checks about what the server did rather than whether the test ran as specified.
 * A server that fails every request also leaves too few samples; that run must still fail
 * on its error rules, not hide behind "inconclusive".
 */
const SERVER_SIDE_CHECKS = new Set(['samples', 'littles_law']);

const describe = (c: CheckOutcome) =>
  c.scope === 'comparability' ? `not comparable with the baseline: ${c.message}` : `${c.scope} run not valid (${c.name}): ${c.message}`;
const ruleLine = (r: RuleOutcome) => `${r.rule}: ${r.reason}`;

/**
 * The verdict, in order of precedence:
 * 1. inconclusive when the experiment was not the one intended — a generator-side validity
 *    check failed in either run, or the runs are not comparable: no difference can be trusted;
 * 2. fail when any blocking rule failed (warn_only rules never block);
 * 3. inconclusive when a rule could not be judged (no or too few samples) or a server-side
 *    validity check failed: empty data never passes;
 * 4. pass.
 */
export function decideVerdict(rules: RuleOutcome[], checks: CheckOutcome[], hasBaseline: boolean): { verdict: Verdict; reasons: string[] } {
  const failedChecks = checks.filter((c) => !c.ok);
  const blockers = failedChecks.filter((c) => c.scope === 'comparability' || !SERVER_SIDE_CHECKS.has(c.name));
  const failed = rules.filter((r) => r.status === 'fail');
  const undecided = rules.filter((r) => r.status === 'inconclusive');
  const notes = [
    ...(hasBaseline ? [] : ['no baseline: only absolute (SLO) rules were judged']),
    ...rules.filter((r) => r.status === 'warn').map((r) => `warning (warn_only): ${ruleLine(r)}`),
  ];
  if (blockers.length > 0) {
    const also =
      failed.length > 0
        ? [`${failed.length} rule(s) failed, but the comparison cannot be trusted: ${failed.map((r) => r.metric).join(', ')}`]
        : [];
    return { verdict: 'inconclusive', reasons: [...blockers.map(describe), ...also, ...notes] };
  }
  if (failed.length > 0) return { verdict: 'fail', reasons: [...failed.map(ruleLine), ...notes] };
  if (undecided.length > 0 || failedChecks.length > 0) {
    return { verdict: 'inconclusive', reasons: [...failedChecks.map(describe), ...undecided.map(ruleLine), ...notes] };
  }
  if (rules.length === 0) return { verdict: 'inconclusive', reasons: ['no rule is enabled: nothing was judged', ...notes] };
  const passed = rules.filter((r) => r.status === 'pass').length;
  const warned = rules.length - passed;
  const runs = hasBaseline ? 'both runs are valid and comparable' : 'the run is valid';
  return { verdict: 'pass', reasons: [`${passed} rules passed${warned > 0 ? `, ${warned} warned` : ''}; ${runs}`, ...notes] };
}
