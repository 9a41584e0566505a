import { quantileBand } from '../result/timestamp-error.js';
import type { Result } from '../result/types.js';
import { num, pctText } from '../numbers.js';
import type { GateSpec } from '../spec/gate-schema.js';
import { normalQuantile, wilson } from '../metrics/stats.js';
import type { RuleOutcome, TimingJudgement } from './types.js';

/*
 * Validity judged per rule. A latency the generator measured can be wrong by as much as its own
 * timestamps were late; whether that matters depends on the rule, not on the run: 3 ms of error
 * decides nothing under a 20 ms allowed rise and everything under 1 ms. So each latency rule is
 * judged only while the generator's error bound at the percentile the rule quotes is at most
 * `gate.max_timestamp_error_share` (default 25 %) of what the rule allows — the allowed change
 * of a regression rule, the margin |limit − value| of an absolute one. Otherwise the rule is
 * inconclusive, naming both numbers, and the other rules stay judged — unless its outcome holds
 * even with the whole bound against it (holdsDespite below).
 */

/**
 * A quantile at percentile p from values known at a few percentiles (knots, ascending),
 * interpolated linearly in log(tail probability) — the scale on which delay tails decay
 * roughly evenly (p90 → p99 is one decade, as p99 → p99.9). Beyond the highest knot the
 * highest knot's value is used: the bound is quoted no further than it was measured.
 */
export function atPercentile(knots: [p: number, value: number][], p: number): number {
  if (p <= knots[0][0]) return knots[0][1];
  for (let i = 1; i < knots.length; i++) {
    const [p0, v0] = knots[i - 1];
    const [p1, v1] = knots[i];
    if (p <= p1) {
      const w = Math.log((100 - p0) / (100 - p)) / Math.log((100 - p0) / (100 - p1));
      return v0 + w * (v1 - v0);
    }
  }
  return knots[knots.length - 1][1];
}

export interface ErrorBound {
  ms: number;
  source: TimingJudgement['source'];
}

/**
 * The error bound of a run's `metric` at percentile p, in ms. The result states two figures
 * (src/result/timestamp-error.ts): s, how far the timestamps can have moved a TTFT quantile in
 * p's band (s_e2e an E2E one, `e2e`; older results state one s for both, the larger; s below
 * is the larger of the two), and e, how late one chunk's timestamp can be (`chunk`; older results
 * state one figure, the larger of the two, which serves as both). What they bound for each metric:
 * - TTFT and E2E are measured from the intended send time (coordinated-omission safe), so a
 *   request the generator sent late is measured late by as much: max(s_ttft, lag), max(s_e2e, lag);
 * - first answer token (from the intended send: with the lag, as TTFT) and TTFT from send have
 *   no quantile-shift figure of their own, and goodput counts requests one by one: max(s, e);
 * - ITL is a gap between two timestamps each late by H…e, H the delivery floor that every chunk
 *   waits alike (timestamp_error_ms.delivery_ms): within e − H, lag and H cancelling;
 * - TPOT = (t_last − t_first) / (n − 1): within (e − H) / (n − 1); E2E per token within
 *   max(s, e, lag) / n, with n the shortest delivered output (the worst case).
 * A result without timestamp_error_ms (older loadgates) falls back to what it has — the
 * event-loop delay and HTTP-pool wait tails (p50, p99) — and says so.
 */
export function errorBound(r: Result, p: number, metric: string): ErrorBound {
  const lag = r.metrics.schedule_lag_ms;
  const lagAt = lag
    ? atPercentile(
        [
          [50, lag.p50],
          [90, lag.p90],
          [95, lag.p95],
          [99, lag.p99],
        ],
        p,
      )
    : 0;
  // The generator's own estimate (src/result/timestamp-error.ts); absent or null in results made before it.
  const te = r.generator.timestamp_error_ms ?? undefined;
  const tail = (t: { p50: number; p99: number } | null | undefined) =>
    t
      ? atPercentile(
          [
            [50, t.p50],
            [99, t.p99],
          ],
          p,
        )
      : 0;
  const at = (t: { p50: number; p90: number; p99: number }) =>
    atPercentile(
      [
        [50, t.p50],
        [90, t.p90],
        [99, t.p99],
      ],
      p,
    );
  const fallback = Math.max(tail(r.generator.event_loop_delay_ms), tail(r.generator.pool_wait_ms));
  // The quantile figures each hold for the quoted percentiles of a band (quantileBand), a shift
  // not being monotone in p: read the band's, never between two. A result without `p999` has its
  // p99 hold the p99.9; one without `chunk` states one figure per percentile, the larger of both
  // kinds: interpolated as before.
  const band = quantileBand(p);
  const sTtft = te ? (te.chunk ? (te[band] ?? te.p99) : at(te)) : fallback;
  // E2E's own figures where the result has them; before, one figure held TTFT and E2E both.
  const sE2e = te?.e2e ? te.e2e[band] : sTtft;
  const s = Math.max(sTtft, sE2e);
  const e = te?.chunk ? at(te.chunk) : sTtft;
  const source = te ? 'timestamp_error' : 'lag_and_loop_delay';
  const shortest = Math.max(1, r.workload.output_tokens.delivered?.min ?? 1);
  const gap = Math.max(0, e - (te?.delivery_ms ?? 0));
  switch (metric) {
    case 'ttft':
      return { ms: Math.max(sTtft, lagAt), source };
    case 'e2e':
      return { ms: Math.max(sE2e, lagAt), source };
    case 'ttft_from_send':
    case 'goodput':
      return { ms: Math.max(s, e), source };
    case 'itl':
      return { ms: gap, source };
    case 'tpot':
      return { ms: gap / Math.max(1, shortest - 1), source };
    case 'normalized_latency':
      return { ms: Math.max(s, e, lagAt) / shortest, source };
    default:
      return { ms: Math.max(s, e, lagAt), source };
  }
}

const SOURCE_TEXT: Record<TimingJudgement['source'], string> = {
  timestamp_error: 'timestamp error bound',
  lag_and_loop_delay: 'error bound (from its schedule-lag and event-loop-delay tails: the result has no timestamp_error_ms)',
};

/** The percentile a latency rule quotes, from its id (latency.ttft_p95, slo.e2e_p999). */
function quotedPercentile(rule: RuleOutcome): { metric: string; p: number; label: string } | null {
  const m = /^(?:latency|slo)\.([a-z0-9_]+)_p(50|90|95|99|999)$/.exec(rule.id);
  if (!m) return null;
  return m[2] === '999' ? { metric: m[1], p: 99.9, label: 'p99.9' } : { metric: m[1], p: Number(m[2]), label: `p${m[2]}` };
}

/**
 * Judges one latency rule's timing validity; null for rules that quote no latency percentile
 * or could not be judged anyway (no value). Regression rules take the larger of both runs'
 * bounds: either run's lateness moves the difference.
 */
export function judgeTiming(rule: RuleOutcome, base: Result | null, cur: Result, share: number): TimingJudgement | null {
  const q = quotedPercentile(rule);
  if (!q || rule.current === null || rule.threshold === null) return null;
  const bounds = [errorBound(cur, q.p, q.metric), ...(rule.kind === 'regression' && base ? [errorBound(base, q.p, q.metric)] : [])];
  const worst = bounds.reduce((a, b) => (b.ms > a.ms ? b : a));
  const allowed = rule.kind === 'regression' ? Math.abs(rule.threshold) : Math.abs(rule.threshold - rule.current);
  const max = share * allowed;
  return {
    bound_ms: worst.ms,
    source: bounds.some((b) => b.source !== 'timestamp_error') ? 'lag_and_loop_delay' : worst.source,
    allowed_ms: allowed,
    max_bound_ms: max,
    judgeable: worst.ms <= max,
  };
}

/**
 * Applies per-rule timing validity: a latency rule whose bound is too large becomes
 * inconclusive, its measured outcome kept in the reason. Every rule gets its `evidence`.
 */
export function applyTimingValidity(rules: RuleOutcome[], base: Result | null, cur: Result, gate: GateSpec): RuleOutcome[] {
  const share = gate.max_timestamp_error_share;
  return rules.map((rule) => {
    if (rule.id === 'error_rate' || rule.id === 'slo.http_5xx_rate' || rule.id === 'slo.http_429_rate')
      return { ...rule, evidence: 'errors' };
    if (rule.id === 'slo.goodput_fraction') return judgeGoodputTiming(rule, cur, share, gate.confidence);
    const timing = judgeTiming(rule, base, cur, share);
    if (!timing) return { ...rule, evidence: 'measurements' };
    const judged = { ...rule, evidence: 'measurements' as const, timing };
    if (timing.judgeable || rule.status === 'inconclusive') return judged;
    if (holdsDespite(rule, timing.bound_ms))
      return {
        ...judged,
        reason: `${rule.reason}; ${rule.status === 'pass' ? 'passes' : 'fails'} even with the generator's ${num(timing.bound_ms)} ms error bound against it`,
      };
    const whose = rule.kind === 'regression' ? 'the larger of both runs’' : 'the current run’s';
    const what =
      rule.kind === 'regression'
        ? `the ${num(timing.allowed_ms)} ms allowed change`
        : `the ${num(timing.allowed_ms)} ms margin to the limit`;
    const reason = `not judgeable at this timing precision: the generator's ${SOURCE_TEXT[timing.source]} at ${quotedPercentile(rule)!.label} is ${num(timing.bound_ms)} ms (${whose}), more than ${pctText(share)} of ${what} (${num(timing.max_bound_ms)} ms); measured: ${rule.reason}`;
    return { ...judged, status: 'inconclusive', reason };
  });
}

/**
 * A coarse generator can still decide a rule whose outcome no error within the bound could
 * change. Timestamps err by 0…b in each run, so a difference errs by at most ±b and an absolute
 * value by at most b. A regression fails on its lower bound (regression.ts): a fail holds when
 * lower − b is still beyond the allowed change, a pass when lower + b is not. An absolute limit:
 * value − b above it, or value + b within it. The 25 % share above is the default bar; this is
 * the exception for outcomes beyond doubt (a server 3× slower fails on any machine).
 */
function holdsDespite(rule: RuleOutcome, b: number): boolean {
  if (rule.threshold === null || rule.current === null) return false;
  if (rule.kind === 'regression') {
    if (!rule.ci) return false;
    return rule.status === 'fail' || rule.status === 'warn' ? rule.ci.lower - b > rule.threshold : rule.ci.lower + b <= rule.threshold;
  }
  return rule.status === 'fail' || rule.status === 'warn' ? rule.current - b > rule.threshold : rule.current + b <= rule.threshold;
}

/**
 * Goodput counts requests that failed or missed a latency SLO. The latency part needs timing
 * precision against the SLOs it tests (TTFT and E2E); the failed part does not. When the bound
 * at p99 is too large against the tightest of those SLOs, the rule is judged on failures alone:
 * if they alone take goodput below its minimum it fails whatever the timing; otherwise it is
 * inconclusive. The failed share is a lower bound on the missed share, so that fail is sound.
 */
function judgeGoodputTiming(rule: RuleOutcome, cur: Result, share: number, confidence: number): RuleOutcome {
  const bound = errorBound(cur, 99, 'goodput');
  const tightest = Math.min(cur.goodput.slo.ttft_ms, cur.goodput.slo.e2e_ms);
  const timing: TimingJudgement = {
    bound_ms: bound.ms,
    source: bound.source,
    allowed_ms: tightest,
    max_bound_ms: share * tightest,
    judgeable: bound.ms <= share * tightest,
  };
  if (timing.judgeable) return { ...rule, evidence: 'measurements', timing };
  const why = `the generator's ${SOURCE_TEXT[bound.source]} at p99 is ${num(bound.ms)} ms, more than ${pctText(share)} of the tightest latency SLO (${num(tightest)} ms)`;
  return goodputByErrors(rule, cur, why, confidence, timing);
}

/**
 * The goodput rule judged on failed requests alone (they count against goodput whatever the
 * timing). Fails when failures alone break the minimum, else inconclusive with `why`.
 */
export function goodputByErrors(rule: RuleOutcome, cur: Result, why: string, confidence: number, timing?: TimingJudgement): RuleOutcome {
  const n = cur.requests.window.scheduled;
  const failed = n - cur.requests.window.by_class.ok;
  const min = rule.threshold ?? 1;
  const atMost = n > 0 ? (n - failed) / n : null;
  // As slo.ts judges shares: enough requests that one cannot decide it, or a breach certain at the gate's confidence.
  const enough = min < 1 ? Math.ceil(1 / (1 - min) - 1e-9) : 1;
  const certain = n > 0 && wilson(failed, n, normalQuantile(confidence)).lower > 1 - min;
  if (atMost !== null && atMost < min && (n >= enough || certain)) {
    return {
      ...rule,
      evidence: 'errors',
      ...(timing ? { timing } : {}),
      status: rule.warn_only ? 'warn' : 'fail',
      reason: `${failed} of ${n} requests failed, so goodput is at most ${pctText(atMost)}, below the minimum of ${pctText(min)} whatever the timing (${why})`,
    };
  }
  if (rule.status === 'inconclusive') return { ...rule, evidence: 'measurements', ...(timing ? { timing } : {}) };
  return {
    ...rule,
    evidence: 'measurements',
    ...(timing ? { timing } : {}),
    status: 'inconclusive',
    reason: `not judgeable at this timing precision: ${why}; failures alone (${failed} of ${n}) do not break the minimum; measured: ${rule.reason}`,
  };
}
