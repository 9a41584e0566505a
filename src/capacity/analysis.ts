import type { Result } from '../result/types.js';
import type { AnalysisOptions, PointAnalysis, SweepAnalysis, SweepPoint } from './types.js';
import { maxOf, round3, sig4 } from '../numbers.js';

/*
 * Capacity analysis of a sweep: pure, points in, numbers and the rule behind each out.
 * Notation: λ the offered rate of a point (arrivals/s in its window), X its throughput
 * (completed requests/s in the window), W a request's time in system, S the service floor,
 * ρ = X / X_max the utilisation, L the mean number of requests in flight.
 */

/** Knee: p99 may be at most this multiple of S (seeds/003: P99 ≤ 3 S at the operational knee). */
export const KNEE_P99_MULTIPLE = 3;
/** Knee: achieved ≈ offered means X ≥ this share of λ. */
export const KNEE_ACHIEVED_FRACTION = 0.95;
/** Knee: throughput tracks load while each step's throughput gain is at least this share of its load gain. */
export const KNEE_TRACKING = 0.8;
/** Sub-millisecond floors are clamped so OS jitter alone cannot break the knee (seeds/003, t_floor ≈ 1–2 ms). */
export const JITTER_FLOOR_MS = 2;
/** S is measured at ρ below this (seeds/003: ρ < 5 %). */
export const FLOOR_MAX_UTILIZATION = 0.05;
/** Closed loop has no "offered" to fall short of: throughput has plateaued when a step adds less than this share. */
export const CLOSED_PLATEAU_GAIN = 0.05;

/** The latency summary the analysis uses (TTFT or E2E). */
function latency(r: Result, metric: AnalysisOptions['metric']) {
  return metric === 'ttft' ? r.metrics.ttft_ms : r.metrics.e2e_ms;
}

/** The load's x value of a point: its nominal rate (open loop) or its concurrency (closed loop). */
export const loadOf = (p: SweepPoint): number => (p.mode === 'open' ? p.rate_per_s! : p.concurrency!);

/** The curve's points, lightest first; the closed-loop probe of an open-loop sweep measures S only. */
function curve(points: SweepPoint[], mode: 'open' | 'closed'): { point: SweepPoint; index: number }[] {
  return points
    .map((point, index) => ({ point, index }))
    .filter((p) => p.point.mode === mode)
    .sort((a, b) => loadOf(a.point) - loadOf(b.point));
}

/** A sweep's mode: open loop unless every point is closed loop. */
export function sweepMode(points: SweepPoint[]): 'open' | 'closed' {
  return points.length > 0 && points.every((p) => p.mode === 'closed') ? 'closed' : 'open';
}

/**
 * Service floor S (seeds/003 checklist item 1): S = W_uncontended − t_RTT, with W_uncontended the
 * metric's p50 at the lightest point. The closed-loop probe of `sweep: auto` sends one request at
 * a time, so no request ever waits for another and its p50 is uncontended whatever ρ; an open-loop
 * lightest point is uncontended only at ρ < 5 %, which is checked against the saturation throughput.
 */
export function serviceFloor(points: SweepPoint[], o: AnalysisOptions, maxRate: number | null): SweepAnalysis['service_floor'] {
  const probe = points.findIndex((p) => p.role === 'probe');
  const lightest = probe >= 0 ? { point: points[probe], index: probe } : curve(points, sweepMode(points))[0];
  const rule = `S = ${o.metric.toUpperCase()} p50 at the lightest point (ρ < ${FLOOR_MAX_UTILIZATION * 100} %, or the concurrency-1 probe), less the network round trip when measured`;
  if (!lightest)
    return { point: null, p50_ms: null, ttft_p50_ms: null, e2e_p50_ms: null, rtt_ms: null, utilization: null, rule, note: 'no points' };
  const r = lightest.point.result;
  const p50 = latency(r, o.metric)?.p50 ?? null;
  const rho = maxRate ? round3(r.throughput.requests_per_s / maxRate) : null;
  const single = lightest.point.mode === 'closed' && lightest.point.concurrency === 1;
  const note =
    p50 === null
      ? 'the lightest point has no successful requests'
      : !single && rho !== null && rho >= FLOOR_MAX_UTILIZATION
        ? `the lightest point ran at ρ = ${sig4(rho * 100)} % (≥ ${FLOOR_MAX_UTILIZATION * 100} %): S may include queueing; add a lighter point`
        : null;
  return {
    point: lightest.index,
    p50_ms: p50,
    ttft_p50_ms: r.metrics.ttft_ms?.p50 ?? null,
    e2e_p50_ms: r.metrics.e2e_ms?.p50 ?? null,
    rtt_ms: o.rttMs ?? null,
    utilization: rho,
    rule,
    note,
  };
}

/**
 * The stop rule: a point is past saturation when (open loop) X < min_achieved_fraction · λ —
 * the server no longer completes what it is offered — or when the metric's p99 > max_p99_multiple · S,
 * which by M/M/1-style W = S / (1 − ρ) means ρ > 90 % (seeds/003; clamped to ≥ 2 ms like the knee). Closed loop cannot fall short of
 * its offer (it waits), so there the first test is that throughput stopped rising with concurrency.
 */
export function pastSaturation(
  p: SweepPoint,
  previous: SweepPoint | null,
  floorMs: number | null,
  o: Pick<AnalysisOptions, 'metric' | 'stop'>,
): string | null {
  const r = p.result;
  const x = r.throughput.requests_per_s;
  if (p.mode === 'open') {
    const offered = r.load.offered_rate_per_s;
    if (offered > 0 && x < o.stop.min_achieved_fraction * offered)
      return `completed ${sig4(x)} req/s of ${sig4(offered)} offered (< ${sig4(o.stop.min_achieved_fraction * 100)} %)`;
  } else if (previous && previous.concurrency! < p.concurrency!) {
    const before = previous.result.throughput.requests_per_s;
    if (before > 0 && x < (1 + CLOSED_PLATEAU_GAIN) * before)
      return `throughput ${sig4(x)} req/s barely above ${sig4(before)} at concurrency ${previous.concurrency} (< +${CLOSED_PLATEAU_GAIN * 100} %)`;
  }
  const p99 = latency(r, o.metric)?.p99;
  if (floorMs !== null && p99 !== undefined && p99 > Math.max(o.stop.max_p99_multiple * floorMs, JITTER_FLOOR_MS))
    return `${o.metric.toUpperCase()} p99 ${sig4(p99)} ms > ${o.stop.max_p99_multiple} × S (${sig4(floorMs)} ms)`;
  if (r.requests.window.by_class.ok === 0 && r.requests.window.scheduled > 0) return 'no request succeeded';
  return null;
}

/**
 * Saturation throughput X_max: the plateau of completed req/s (and output tok/s). Open loop: the
 * mean over the points that could not complete their offer (X < min_achieved_fraction · λ) — past
 * that rate arrivals only queue, so X stays at the server's ceiling. Closed loop: the mean over the
 * points within 5 % of the highest throughput. Without such points the highest throughput seen is
 * reported as a lower bound (reached: false).
 */
function saturation(points: SweepPoint[], mode: 'open' | 'closed', o: AnalysisOptions): SweepAnalysis['saturation'] {
  const c = curve(points, mode);
  const rule =
    mode === 'open'
      ? `X_max = mean completed req/s (and output tok/s) over the points that completed < ${sig4(o.stop.min_achieved_fraction * 100)} % of their offered rate: the plateau`
      : `X_max = mean completed req/s (and output tok/s) over the concurrency levels within ${CLOSED_PLATEAU_GAIN * 100} % of the highest throughput: the plateau`;
  if (c.length === 0) return { requests_per_s: null, output_tokens_per_s: null, reached: false, points: [], rule };
  const best = maxOf(c.map((p) => p.point.result.throughput.requests_per_s));
  let plateau =
    mode === 'open'
      ? c.filter((p) => p.point.result.throughput.requests_per_s < o.stop.min_achieved_fraction * p.point.result.load.offered_rate_per_s)
      : c.filter((p) => p.point.result.throughput.requests_per_s >= (1 - CLOSED_PLATEAU_GAIN) * best);
  const reached = mode === 'open' ? plateau.length > 0 : plateau.length > 1;
  if (!reached) plateau = c.filter((p) => p.point.result.throughput.requests_per_s === best);
  const mean = (f: (r: Result) => number) => round3(plateau.reduce((a, p) => a + f(p.point.result), 0) / plateau.length);
  return {
    requests_per_s: mean((r) => r.throughput.requests_per_s),
    output_tokens_per_s: mean((r) => r.throughput.output_tokens_per_s),
    reached,
    points: plateau.map((p) => p.index),
    rule,
  };
}

/**
 * Knee (seeds/003 checklist item 2): the highest load of the leading run of points that each meet
 *   (a) achieved ≈ offered: X ≥ 95 % of λ (open loop);
 *   (b) p99 ≤ max(3 × S, 2 ms): the tail has not left the floor's neighbourhood (the 2 ms clamp
 *       keeps OS jitter from breaking a sub-millisecond floor);
 *   (c) throughput still tracks load: from the previous point, ΔX ≥ 80 % of Δλ (open loop), or
 *       X rose by at least half the concurrency's relative rise (closed loop, where X = c / W).
 * Past the knee throughput flattens while latency turns up superlinearly. "Leading run": the first
 * point that breaks a rule ends the search, so a lucky noisy point beyond it cannot become the knee.
 */
function knee(points: SweepPoint[], mode: 'open' | 'closed', floorMs: number | null, o: AnalysisOptions): SweepAnalysis['knee'] {
  const rule =
    mode === 'open'
      ? `knee = highest rate of the leading run of points with completed ≥ ${KNEE_ACHIEVED_FRACTION * 100} % of offered, ${o.metric.toUpperCase()} p99 ≤ max(${KNEE_P99_MULTIPLE} × S, ${JITTER_FLOOR_MS} ms), and ΔX ≥ ${KNEE_TRACKING * 100} % of Δλ from the previous point`
      : `knee = highest concurrency of the leading run of levels with ${o.metric.toUpperCase()} p99 ≤ max(${KNEE_P99_MULTIPLE} × S, ${JITTER_FLOOR_MS} ms) and throughput rising by ≥ half the concurrency's relative rise`;
  const none = { rate_per_s: null, concurrency: null, point: null, p99_ms: null, limit_ms: null, next_load: null, rule };
  if (floorMs === null) return { ...none, note: 'no service floor: the knee is undefined' };
  const limit = Math.max(KNEE_P99_MULTIPLE * floorMs, JITTER_FLOOR_MS);
  const c = curve(points, mode);
  let found: (typeof c)[number] | null = null;
  let next: number | null = null;
  let broke: string | null = null;
  for (let i = 0; i < c.length; i++) {
    const p = c[i].point;
    const r = p.result;
    const x = r.throughput.requests_per_s;
    const p99 = latency(r, o.metric)?.p99 ?? Infinity;
    const prev = i > 0 ? c[i - 1].point.result : null;
    if (mode === 'open' && x < KNEE_ACHIEVED_FRACTION * r.load.offered_rate_per_s)
      broke = `completed ${sig4(x)} of ${sig4(r.load.offered_rate_per_s)} req/s offered`;
    else if (p99 > limit) broke = `p99 ${sig4(p99)} ms > ${sig4(limit)} ms`;
    else if (
      prev &&
      mode === 'open' &&
      x - prev.throughput.requests_per_s < KNEE_TRACKING * (r.load.offered_rate_per_s - prev.load.offered_rate_per_s)
    )
      broke = `throughput rose ${sig4(x - prev.throughput.requests_per_s)} req/s for ${sig4(r.load.offered_rate_per_s - prev.load.offered_rate_per_s)} more offered`;
    else if (prev && mode === 'closed') {
      const prevC = c[i - 1].point.concurrency!;
      const gain = prev.throughput.requests_per_s > 0 ? x / prev.throughput.requests_per_s - 1 : Infinity;
      if (gain < 0.5 * (p.concurrency! / prevC - 1))
        broke = `throughput rose ${sig4(gain * 100)} % for ${sig4((p.concurrency! / prevC - 1) * 100)} % more concurrency`;
    }
    if (broke) {
      next = loadOf(p);
      break;
    }
    found = c[i];
  }
  if (!found) return { ...none, limit_ms: round3(limit), next_load: next, note: `even the lightest point breaks the rule (${broke})` };
  const r = found.point.result;
  return {
    rate_per_s: found.point.mode === 'open' ? found.point.rate_per_s : r.throughput.requests_per_s,
    concurrency: found.point.concurrency,
    point: found.index,
    p99_ms: latency(r, o.metric)?.p99 ?? null,
    limit_ms: round3(limit),
    next_load: next,
    rule,
    note:
      next === null ? 'every point met the rules: the knee is at or above the heaviest point' : `the next point (${sig4(next)}) ${broke}`,
  };
}

/** A point meets the SLO target when its goodput fraction (requests meeting spec.slo among those scheduled in the window) ≥ the target. */
export const meetsTarget = (r: Result, target: number): boolean => r.goodput.fraction !== null && r.goodput.fraction >= target;

/**
 * The bracket of capacity at SLO: the highest load of the leading run of points that meet the
 * target, and the next load measured above it (which does not). Capacity lies in [passing, failing).
 */
export function sloBracket(points: SweepPoint[], target: number): { passing: SweepPoint | null; failing: SweepPoint | null } {
  const c = curve(points, sweepMode(points));
  let passing: SweepPoint | null = null;
  for (const { point } of c) {
    if (!meetsTarget(point.result, target)) return { passing, failing: point };
    passing = point;
  }
  return { passing, failing: null };
}

/**
 * The next load to measure when bisecting capacity at SLO (as vLLM's serve_sla does): the midpoint
 * of [passing, failing) while (failing − passing) / passing > precision; null when it is pinned (or
 * unbounded). Closed loop bisects integer concurrency until the bracket is one apart.
 */
export function nextBisection(points: SweepPoint[], target: number, precision: number): number | null {
  const { passing, failing } = sloBracket(points, target);
  if (!passing || !failing) return null;
  const lo = loadOf(passing);
  const hi = loadOf(failing);
  if (passing.mode === 'closed') return hi - lo > 1 ? Math.floor((lo + hi) / 2) : null;
  if ((hi - lo) / lo <= precision) return null;
  return round3((lo + hi) / 2);
}

/**
 * The next load to measure when refining the knee: the midpoint of [knee, next_load) — the last
 * point that met the knee's rules and the first that broke one — while that bracket is wider
 * than `precision` of the knee. Null when the knee is pinned, not found, or at the heaviest point.
 */
export function nextKneeBisection(points: SweepPoint[], o: AnalysisOptions): number | null {
  const k = analyzeSweep(points, o).knee;
  if (k.point === null || k.next_load === null) return null;
  const lo = loadOf(points[k.point]);
  const hi = k.next_load;
  if (points[k.point].mode === 'closed') return hi - lo > 1 ? Math.floor((lo + hi) / 2) : null;
  return (hi - lo) / lo > o.precision ? round3((lo + hi) / 2) : null;
}

function capacityAtSlo(points: SweepPoint[], o: AnalysisOptions): SweepAnalysis['capacity_at_slo'] {
  const { passing, failing } = sloBracket(points, o.sloTarget);
  const rule = `capacity at SLO = highest load of the leading run of points whose goodput fraction ≥ ${sig4(o.sloTarget * 100)} % (spec.slo defines a good request), bisected between the last passing and the first failing point to ${sig4(o.precision * 100)} %`;
  const lo = passing ? loadOf(passing) : null;
  const hi = failing ? loadOf(failing) : null;
  const note = !passing
    ? 'even the lightest point missed the target'
    : !failing
      ? 'every point met the target: capacity is at least the heaviest point'
      : (hi! - lo!) / lo! > o.precision
        ? `bracket [${sig4(lo!)}, ${sig4(hi!)}) wider than the precision: bisection stopped early (max points or interrupted)`
        : null;
  return {
    rate_per_s: passing ? (passing.mode === 'open' ? passing.rate_per_s : passing.result.throughput.requests_per_s) : null,
    concurrency: passing?.concurrency ?? null,
    target: o.sloTarget,
    passing_load: lo,
    failing_load: hi,
    resolution: lo !== null && hi !== null ? round3((hi - lo) / lo) : null,
    precision: o.precision,
    rule,
    note,
  };
}

/**
 * Per point, Little's law L = λ·W (λ the dispatch rate, W the mean time in system from send to
 * end) beside the measured time-average in flight and its peak. L above the engine's batch slots
 * means the excess L − slots requests wait in the server's queue on average: oversubscribed.
 */
function pointAnalysis(points: SweepPoint[], o: AnalysisOptions, floorMs: number | null, maxRate: number | null): PointAnalysis[] {
  const byLoad = curve(points, sweepMode(points));
  const previous = new Map(byLoad.map((p, i) => [p.index, i > 0 ? byLoad[i - 1].point : null]));
  return points.map((p, index) => {
    const r = p.result;
    const lat = latency(r, o.metric);
    const e2e = r.metrics.e2e_ms;
    const L = r.littles_law.predicted_in_flight;
    const why = pastSaturation(p, previous.get(index) ?? null, floorMs, o);
    return {
      index,
      role: p.role,
      mode: p.mode,
      load: loadOf(p),
      offered_rate_per_s: r.load.offered_rate_per_s,
      requests_per_s: r.throughput.requests_per_s,
      output_tokens_per_s: r.throughput.output_tokens_per_s,
      achieved_fraction: r.load.offered_rate_per_s > 0 ? round3(r.throughput.requests_per_s / r.load.offered_rate_per_s) : null,
      latency_ms: { p50: lat?.p50 ?? null, p90: lat?.p90 ?? null, p99: lat?.p99 ?? null },
      e2e_ms: { mean: e2e?.mean ?? null, p90: e2e?.p90 ?? null, p99: e2e?.p99 ?? null, p999: e2e?.p999 ?? null },
      goodput_fraction: r.goodput.fraction,
      utilization: maxRate ? round3(r.throughput.requests_per_s / maxRate) : null,
      littles_law: {
        predicted_in_flight: L,
        mean_in_flight: r.littles_law.mean_in_flight,
        peak_in_flight: r.littles_law.peak_in_flight ?? null,
        oversubscribed: o.batchSlots === null ? null : r.littles_law.mean_in_flight > o.batchSlots,
      },
      saturated: why !== null,
      saturated_because: why,
      valid: r.validity.valid,
      interrupted: r.load.interrupted,
    };
  });
}

/** The whole analysis of a sweep's points. Pure: the same points always give the same numbers. */
export function analyzeSweep(points: SweepPoint[], o: AnalysisOptions): SweepAnalysis {
  const mode = sweepMode(points);
  const sat = saturation(points, mode, o);
  const floor = serviceFloor(points, o, sat.requests_per_s);
  const floorMs = floor.p50_ms === null ? null : round3(Math.max(0, floor.p50_ms - (o.rttMs ?? 0)));
  const analysed = pointAnalysis(points, o, floorMs, sat.requests_per_s);
  const oversubscribed = analysed
    .filter((p) => p.littles_law.oversubscribed)
    .map(
      (p) =>
        `point ${p.index + 1} (${sig4(p.load)} ${p.mode === 'open' ? 'req/s' : 'concurrent'}): L = ${sig4(p.littles_law.mean_in_flight)} in flight > ${o.batchSlots} batch slots — about ${sig4(p.littles_law.mean_in_flight - o.batchSlots!)} requests wait in the server's queue`,
    );
  return {
    mode,
    metric: o.metric,
    service_floor_ms: floorMs,
    service_floor: floor,
    knee: knee(points, mode, floorMs, o),
    saturation: sat,
    capacity_at_slo: capacityAtSlo(points, o),
    batch_slots: o.batchSlots,
    oversubscribed,
    points: analysed,
  };
}
