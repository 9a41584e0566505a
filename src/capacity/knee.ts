import { round3, sig4 } from '../numbers.js';
import type { Result } from '../result/types.js';
import { curve, histogramOf, latency, loadOf } from './curve.js';
import {
  CAPACITY_CONFIDENCE,
  CAPACITY_Z,
  isotonicFit,
  judgeLimit,
  monotoneEnvelope,
  percentileInterval,
  throughputNoise,
  windowCompletion,
  type NoisyVerdict,
} from './noise.js';
import type { AnalysisOptions, KneeCheck, SweepAnalysis, SweepPoint } from './types.js';

/** Knee: p99 may be at most this multiple of S (docs/methodology.md, "Latency as a multiple of S": p99 ≤ 3 S at the operational knee). */
export const KNEE_P99_MULTIPLE = 3;
/** Knee: achieved ≈ offered means X ≥ this share of λ. */
export const KNEE_ACHIEVED_FRACTION = 0.95;
/** Knee: throughput tracks load while each step's throughput gain is at least this share of its load gain. */
export const KNEE_TRACKING = 0.8;
/** Sub-millisecond floors are clamped so OS jitter alone cannot break the knee (docs/methodology.md: floors below 1–2 ms are clamped). */
export const JITTER_FLOOR_MS = 2;

type CurvePoint = { point: SweepPoint; index: number };

/** The worse of two verdicts: fail over ambiguous over pass. */
const worse = (a: NoisyVerdict, b: NoisyVerdict): NoisyVerdict =>
  a === 'fail' || b === 'fail' ? 'fail' : a === 'ambiguous' || b === 'ambiguous' ? 'ambiguous' : 'pass';

/**
 * Throughput tracks load (open loop): ΔX ≥ 80 % of Δλ from the previous point, with the edge noise
 * of both points' throughput (noise.ts throughputNoise) as tolerance: z·√(σ₁² + σ₂²).
 */
function trackingCheck(r: Result, prev: Result): { verdict: NoisyVerdict; estimatePass: boolean; why: string } {
  const dx = r.throughput.requests_per_s - prev.throughput.requests_per_s;
  const need = KNEE_TRACKING * (r.load.offered_rate_per_s - prev.load.offered_rate_per_s);
  const tol = CAPACITY_Z * Math.hypot(throughputNoise(r), throughputNoise(prev));
  // Points closer in realised offer than their noise (bisection steps) cannot show tracking or its loss.
  if (r.load.offered_rate_per_s - prev.load.offered_rate_per_s <= tol)
    return { verdict: 'pass', estimatePass: true, why: 'offered rates within noise of each other: tracking not judged' };
  const verdict = dx >= need ? 'pass' : dx < need - tol ? 'fail' : 'ambiguous';
  return {
    verdict,
    estimatePass: dx >= need,
    why: `throughput rose ${sig4(dx)} req/s for ${sig4(r.load.offered_rate_per_s - prev.load.offered_rate_per_s)} more offered (noise ±${sig4(tol)})`,
  };
}

/** Closed loop: X rose by at least half the concurrency's relative rise (X = c / W). No noise term: a closed loop's counts are its own. */
function closedTrackingCheck(p: SweepPoint, prev: SweepPoint): { verdict: NoisyVerdict; estimatePass: boolean; why: string } {
  const before = prev.result.throughput.requests_per_s;
  const gain = before > 0 ? p.result.throughput.requests_per_s / before - 1 : Infinity;
  const rise = p.concurrency! / prev.concurrency! - 1;
  const ok = gain >= 0.5 * rise;
  return {
    verdict: ok ? 'pass' : 'fail',
    estimatePass: ok,
    why: `throughput rose ${sig4(gain * 100)} % for ${sig4(rise * 100)} % more concurrency`,
  };
}

/** Every rule on every curve point, each with its noise; the tail judged on the monotone envelope of the points' p99 intervals. */
export function kneeChecks(c: CurvePoint[], mode: 'open' | 'closed', limit: number, o: AnalysisOptions): KneeCheck[] {
  const tails = c.map(({ point }) => percentileInterval(point.result, histogramOf(o.metric), 99));
  const envelope = monotoneEnvelope(tails);
  const fit = isotonicFit(
    c.map(({ point }) => latency(point.result, o.metric)?.p99 ?? Infinity),
    tails.map((t) => t?.samples ?? 0),
  );
  return c.map(({ point, index }, i) => {
    const r = point.result;
    const tail = envelope[i];
    const p99 = latency(r, o.metric)?.p99 ?? Infinity;
    // The point estimate, held inside the envelope; where the envelope contradicts itself (the
    // points disagree beyond their noise), the isotonic fit of the estimates decides.
    const p99Fit = tail && tail.lower <= tail.upper ? Math.min(Math.max(p99, tail.lower), tail.upper) : fit[i];
    const parts: { verdict: NoisyVerdict; estimatePass: boolean; why: string }[] = [];
    if (mode === 'open') {
      const w = windowCompletion(r, KNEE_ACHIEVED_FRACTION);
      const why = `${w.ok} of the window's ${w.scheduled} requests completed (needs ≥ ${KNEE_ACHIEVED_FRACTION * 100} %)`;
      parts.push({ verdict: w.verdict, estimatePass: w.verdict === 'pass', why });
    }
    const tailVerdict = tail ? judgeLimit(tail, limit) : 'fail';
    const tailText = tail ? `p99 ${sig4(p99)} ms (${sig4(tail.lower)}–${sig4(tail.upper)} over the envelope)` : 'no samples';
    parts.push({ verdict: tailVerdict, estimatePass: p99Fit <= limit, why: `${tailText} vs ${sig4(limit)} ms` });
    if (i > 0) parts.push(mode === 'open' ? trackingCheck(r, c[i - 1].point.result) : closedTrackingCheck(point, c[i - 1].point));
    const verdict = parts.reduce<NoisyVerdict>((a, p) => worse(a, p.verdict), 'pass');
    const failing = parts.filter((p) => p.verdict !== 'pass');
    return {
      index,
      load: loadOf(point),
      verdict,
      estimate_pass: parts.every((p) => p.estimatePass),
      tail_ms: tail ? { lower: round3(tail.lower), upper: round3(tail.upper) } : null,
      why: failing.length ? failing.map((p) => `${p.verdict === 'fail' ? 'fails' : 'within noise'}: ${p.why}`).join('; ') : null,
    };
  });
}

/** The rule text, which says how each criterion carries its noise. */
function kneeRule(mode: 'open' | 'closed', o: AnalysisOptions): string {
  const tail = `${o.metric.toUpperCase()} p99 ≤ max(${KNEE_P99_MULTIPLE} × S, ${JITTER_FLOOR_MS} ms), judged on its order-statistic ${CAPACITY_CONFIDENCE * 100} % bounds over the monotone envelope of the points`;
  return mode === 'open'
    ? `knee = highest rate of the leading run of points with ≥ ${KNEE_ACHIEVED_FRACTION * 100} % of the window's requests completed (whenever they finished, so no edge term), ${tail}, and ΔX ≥ ${KNEE_TRACKING * 100} % of Δλ from the previous point (tolerance z·√min(2·L, C) per point: the requests in flight at the window's edges, or past saturation the completions' Poisson noise); a point within the noise of a rule is measured again, then read by its estimate`
    : `knee = highest concurrency of the leading run of levels with ${tail}, and throughput rising by ≥ half the concurrency's relative rise`;
}

/**
 * Knee (docs/methodology.md, "Latency as a multiple of S"): the highest load of the leading run of points that meet
 *   (a) achieved ≈ offered: ≥ 95 % of the window's requests completed, whenever (open loop: no edge term);
 *   (b) p99 ≤ max(3 × S, 2 ms), on the p99's confidence bounds over the envelope of the points;
 *   (c) throughput still tracks load: ΔX ≥ 80 % of Δλ (open loop, within noise), or X rose by at
 *       least half the concurrency's relative rise (closed loop, where X = c / W).
 * A point clearly passes when every rule passes with its noise against it, clearly fails when
 * one fails with its noise in its favour, and is ambiguous between (the sweep measures it
 * again). The knee is the last point of the leading run that does not fail (ambiguous ones
 * read by their estimate); its range runs from the highest point of the leading run of clear
 * passes to the first clear failure.
 */
export function knee(points: SweepPoint[], mode: 'open' | 'closed', floorMs: number | null, o: AnalysisOptions): SweepAnalysis['knee'] {
  const rule = kneeRule(mode, o);
  const none = {
    rate_per_s: null,
    concurrency: null,
    point: null,
    p99_ms: null,
    limit_ms: null,
    next_load: null,
    rule,
    range: null,
    checks: [],
    ambiguous: [],
  };
  if (floorMs === null) return { ...none, note: 'no service floor: the knee is undefined' };
  const limit = Math.max(KNEE_P99_MULTIPLE * floorMs, JITTER_FLOOR_MS);
  const c = curve(points, mode);
  const checks = kneeChecks(c, mode, limit, o);
  const stop = checks.findIndex((k) => k.verdict === 'fail' || (k.verdict === 'ambiguous' && !k.estimate_pass));
  const lead = stop < 0 ? checks : checks.slice(0, stop);
  const clear = checks.findIndex((k) => k.verdict !== 'pass');
  const firstFail = checks.find((k, i) => k.verdict === 'fail' && i >= (stop < 0 ? checks.length : stop));
  const range = {
    lower: clear === 0 ? null : ((clear < 0 ? checks[checks.length - 1] : checks[clear - 1])?.load ?? null),
    upper: firstFail?.load ?? (stop >= 0 ? checks[stop].load : null),
  };
  const ambiguous = checks
    .slice(0, stop < 0 ? checks.length : stop + 1)
    .filter((k) => k.verdict === 'ambiguous')
    .map((k) => k.index);
  const base = { limit_ms: round3(limit), next_load: stop >= 0 ? checks[stop].load : null, rule, range, checks, ambiguous };
  if (lead.length === 0) return { ...none, ...base, note: `even the lightest point breaks the rule (${checks[0]?.why ?? 'no points'})` };
  const found = c[lead.length - 1];
  const r = found.point.result;
  return {
    ...base,
    rate_per_s: found.point.mode === 'open' ? found.point.rate_per_s : r.throughput.requests_per_s,
    concurrency: found.point.concurrency,
    point: found.index,
    p99_ms: latency(r, o.metric)?.p99 ?? null,
    note:
      stop < 0
        ? 'every point met the rules: the knee is at or above the heaviest point'
        : `the next point (${sig4(checks[stop].load)}) ${checks[stop].why}`,
  };
}
