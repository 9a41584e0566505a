import type { Result } from '../result/types.js';
import { advisoryNote } from './check-effects.js';
import type { CheckOutcome, RuleOutcome, Verdict } from './types.js';

const describe = (c: CheckOutcome) =>
  c.scope === 'comparability'
    ? `not comparable with the baseline: ${c.message}`
    : c.scope === 'calibration'
      ? `calibration (${c.name}): ${c.message}`
      : `${c.scope} run not valid (${c.name}): ${c.message}`;
const ruleLine = (r: RuleOutcome) => `${r.rule}: ${r.reason}`;
const onErrors = (r: RuleOutcome) => r.evidence === 'errors';
/** Checks made outside compare() (a sweep's points) carry no effect: the server-side ones leave it undecided, the rest block, as before effects existed. */
const SERVER_SIDE = new Set(['samples', 'littles_law']);
const effectOf = (c: CheckOutcome) => c.effect ?? (c.scope !== 'comparability' && SERVER_SIDE.has(c.name) ? 'server' : 'blocks');

/**
 * A run whose every window request failed is a broken server, whatever else is true of the
 * run: no timing, sample or comparability question can make that a pass or "inconclusive".
 * Requests cancelled by an interrupt were ended by the user, not the server: a run stopped
 * before any window request could finish says nothing about the server (it is inconclusive).
 */
export function allFailed(cur: Result): string | null {
  const w = cur.requests.window;
  const endedByServer = w.scheduled - (w.by_class.cancelled ?? 0);
  if (endedByServer === 0 || w.by_class.ok > 0) return null;
  const cancelled = w.by_class.cancelled ?? 0;
  const classes = Object.entries(w.by_class)
    .filter(([k, n]) => n > 0 && k !== 'cancelled')
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  if (cancelled === 0) return `every one of the ${w.scheduled} requests in the window failed (${classes})`;
  return `every one of the ${endedByServer} requests in the window that the server ended failed (${classes}); ${cancelled} more were cancelled by the interrupt`;
}

/**
 * The verdict, in order of precedence:
 * 0. fail when every request of the current window failed;
 * 1. inconclusive when the experiment was not the one intended — a check that `blocks` failed
 *    (interrupted, offered load not achieved, runs not comparable): no difference can be trusted;
 * 2. fail when a blocking rule failed that can be trusted: a rule on error counts always, a rule
 *    on measurements only while no `measurements` check failed (an explicit generator limit
 *    broken) — warn_only rules never block;
 * 3. inconclusive when a `measurements` check failed, a rule could not be judged (no or too few
 *    samples, timing too coarse for it, its metric unstable between runs: a `rules` check) or a
 *    server-side check failed: empty data never passes;
 * 4. pass.
 */
export function decideVerdict(
  rules: RuleOutcome[],
  checks: CheckOutcome[],
  hasBaseline: boolean,
  brokenServer: string | null = null,
): { verdict: Verdict; reasons: string[] } {
  const failedChecks = checks.filter((c) => !c.ok);
  const blockers = failedChecks.filter((c) => effectOf(c) === 'blocks');
  const untrusted = failedChecks.filter((c) => effectOf(c) === 'measurements');
  const serverSide = failedChecks.filter((c) => effectOf(c) === 'server');
  const failed = rules.filter((r) => r.status === 'fail');
  const trusted = failed.filter((r) => onErrors(r) || untrusted.length === 0);
  const undecided = rules.filter((r) => r.status === 'inconclusive');
  const notes = [
    ...(hasBaseline ? [] : ['no baseline: only absolute (SLO) rules were judged']),
    ...rules.filter((r) => r.status === 'warn').map((r) => `warning (warn_only): ${ruleLine(r)}`),
    ...advisoryNote(checks),
  ];
  if (brokenServer) return { verdict: 'fail', reasons: [brokenServer, ...failed.map(ruleLine), ...notes] };
  if (blockers.length > 0) {
    const also =
      failed.length > 0
        ? [`${failed.length} rule(s) failed, but the comparison cannot be trusted: ${failed.map((r) => r.metric).join(', ')}`]
        : [];
    return { verdict: 'inconclusive', reasons: [...blockers.map(describe), ...also, ...notes] };
  }
  if (trusted.length > 0) {
    const unjudged =
      untrusted.length > 0
        ? [
            `rules on measurements were not trusted (${untrusted.map((c) => `${c.scope} ${c.name}`).join(', ')}); the rules above count failed requests, which no timing can move`,
          ]
        : [];
    return { verdict: 'fail', reasons: [...trusted.map(ruleLine), ...unjudged, ...notes] };
  }
  if (untrusted.length > 0) {
    const also =
      failed.length > 0
        ? [`${failed.length} rule(s) failed, but the comparison cannot be trusted: ${failed.map((r) => r.metric).join(', ')}`]
        : [];
    return { verdict: 'inconclusive', reasons: [...untrusted.map(describe), ...also, ...notes] };
  }
  if (undecided.length > 0 || serverSide.length > 0) {
    return { verdict: 'inconclusive', reasons: [...serverSide.map(describe), ...undecided.map(ruleLine), ...notes] };
  }
  if (rules.length === 0) return { verdict: 'inconclusive', reasons: ['no rule is enabled: nothing was judged', ...notes] };
  const passed = rules.filter((r) => r.status === 'pass').length;
  const warned = rules.length - passed;
  const runs = hasBaseline ? 'both runs are valid and comparable' : 'the run is valid';
  return { verdict: 'pass', reasons: [`${passed} rules passed${warned > 0 ? `, ${warned} warned` : ''}; ${runs}`, ...notes] };
}
