import type { Result } from '../result/types.js';
import type { AnalysisOptions, PointAnalysis, SweepAnalysis, SweepPoint } from './types.js';
import { maxOf, round3, sig4 } from '../numbers.js';
import { curve, histogramOf, latency, loadOf, sweepMode } from './curve.js';
import { JITTER_FLOOR_MS, knee } from './knee.js';
import { CAPACITY_CONFIDENCE, CAPACITY_Z, completedVsOffered, percentileInterval } from './noise.js';
import { wilson } from '../metrics/stats.js';

export { curve, latency, loadOf, sweepMode } from './curve.js';
export { JITTER_FLOOR_MS, KNEE_ACHIEVED_FRACTION, KNEE_P99_MULTIPLE, KNEE_TRACKING } from './knee.js';

/*
 * Capacity analysis of a sweep: pure, points in, numbers and the rule behind each out.
 * Notation: λ the offered rate of a point (arrivals/s in its window), X its throughput
 * (completed requests/s in the window), W a request's time in system, S the service floor,
 * ρ = X / X_max the utilisation, L the mean number of requests in flight.
 */

/** S is measured at ρ below this (docs/methodology.md, "The service floor S": ρ < 5 %). */
export const FLOOR_MAX_UTILIZATION = 0.05;
/** Closed loop has no "offered" to fall short of: throughput has plateaued when a step adds less than this share. */
export const CLOSED_PLATEAU_GAIN = 0.05;

/**
 * Service floor S (docs/methodology.md, "The service floor S"): S = W_uncontended − t_RTT, with W_uncontended the
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
 * The stop rule: a point is past saturation when (open loop) X < min_achieved_fraction · λ beyond
 * the window's edge noise (noise.ts completedVsOffered) — the server no longer completes what it is
 * offered — or when the lower confidence bound of the metric's p99 > max_p99_multiple · S, which by
 * M/M/1-style W = S / (1 − ρ) means ρ > 90 % (docs/methodology.md; clamped to ≥ 2 ms like the knee). Closed
 * loop cannot fall short of its offer (it waits), so there the first test is that throughput
 * stopped rising with concurrency.
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
    const s = completedVsOffered(r, o.stop.min_achieved_fraction);
    if (s.offered > 0 && s.verdict === 'fail')
      return `completed ${sig4(x)} req/s of ${sig4(r.load.offered_rate_per_s)} offered (< ${sig4(o.stop.min_achieved_fraction * 100)} % beyond the edge noise of ${sig4(s.tolerance)} requests)`;
  } else if (previous && previous.concurrency! < p.concurrency!) {
    const before = previous.result.throughput.requests_per_s;
    if (before > 0 && x < (1 + CLOSED_PLATEAU_GAIN) * before)
      return `throughput ${sig4(x)} req/s barely above ${sig4(before)} at concurrency ${previous.concurrency} (< +${CLOSED_PLATEAU_GAIN * 100} %)`;
  }
  const tail = percentileInterval(r, histogramOf(o.metric), 99);
  if (floorMs !== null && tail !== null && tail.lower > Math.max(o.stop.max_p99_multiple * floorMs, JITTER_FLOOR_MS))
    return `${o.metric.toUpperCase()} p99 ${sig4(latency(r, o.metric)?.p99 ?? tail.estimate)} ms (lower bound ${sig4(tail.lower)} ms) > ${o.stop.max_p99_multiple} × S (${sig4(floorMs)} ms)`;
  if (r.requests.window.by_class.ok === 0 && r.requests.window.scheduled > 0) return 'no request succeeded';
  return null;
}

/** The plateau's points: open loop, those short of their offer (on the estimate), else the closed-loop throughput point; closed loop, the levels near the best. */
function plateauOf(
  points: SweepPoint[],
  mode: 'open' | 'closed',
  o: AnalysisOptions,
): { plateau: { point: SweepPoint; index: number }[]; reached: boolean } {
  const c = curve(points, mode);
  const best = maxOf(c.map((p) => p.point.result.throughput.requests_per_s));
  if (mode === 'closed') {
    const near = c.filter((p) => p.point.result.throughput.requests_per_s >= (1 - CLOSED_PLATEAU_GAIN) * best);
    return near.length > 1
      ? { plateau: near, reached: true }
      : { plateau: c.filter((p) => p.point.result.throughput.requests_per_s === best), reached: false };
  }
  // On the estimate, not beyond noise: a point a little short of its offer near the ceiling still
  // measures the ceiling (it is the stop rule that must not fire on noise). But a point short of
  // its offer below one that completed its offer is noise, not the ceiling: only points above the
  // heaviest point that completed its offer count.
  const isShort = (p: (typeof c)[number]) => completedVsOffered(p.point.result, o.stop.min_achieved_fraction).verdict !== 'pass';
  const lastFull = maxOf(c.filter((p) => !isShort(p)).map((p) => loadOf(p.point)));
  const short = c.filter((p) => isShort(p) && loadOf(p.point) > lastFull);
  if (short.length > 0) return { plateau: short, reached: true };
  const throughput = points.map((point, index) => ({ point, index })).filter((p) => p.point.role === 'throughput');
  if (throughput.length > 0) return { plateau: throughput, reached: true };
  return { plateau: c.filter((p) => p.point.result.throughput.requests_per_s === best), reached: false };
}

/**
 * The plateau's uncertainty: each point's completions are counts, so X = n / T has a Poisson SE
 * of √n / T; the mean of k points has SE √(Σ nᵢ) / (k·T) for equal windows, and when the points
 * disagree more than that, their own spread s / √k is used instead. One-sided bounds at z.
 */
function plateauRange(plateau: { point: SweepPoint }[], mean: number): { lower: number; upper: number } {
  const k = plateau.length;
  const xs = plateau.map((p) => p.point.result.throughput.requests_per_s);
  const poisson =
    Math.sqrt(plateau.reduce((a, p) => a + p.point.result.throughput.requests_per_s / Math.max(p.point.result.load.window_s, 1e-9), 0)) / k;
  const spread = k > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (k - 1)) / Math.sqrt(k) : 0;
  const se = Math.max(poisson, spread);
  return { lower: round3(Math.max(0, mean - CAPACITY_Z * se)), upper: round3(mean + CAPACITY_Z * se) };
}

/**
 * Saturation throughput X_max: the plateau of completed req/s (and output tok/s). Open loop: the
 * mean over the points that could not complete their offer — past that rate arrivals
 * only queue, so X stays at the server's ceiling — or, without one, the closed-loop throughput
 * point (as many requests at once as the engine can hold). Closed loop: the mean over the points
 * within 5 % of the highest throughput. Without such points the highest throughput seen is
 * reported as a lower bound (reached: false).
 */
function saturation(points: SweepPoint[], mode: 'open' | 'closed', o: AnalysisOptions): SweepAnalysis['saturation'] {
  const rule =
    mode === 'open'
      ? `X_max = mean completed req/s (and output tok/s) over the points above the heaviest one that completed its offer which completed < ${sig4(o.stop.min_achieved_fraction * 100)} % of their offered rate (or the throughput point): the plateau; range: Poisson noise of its completions or the points' spread, whichever is larger`
      : `X_max = mean completed req/s (and output tok/s) over the concurrency levels within ${CLOSED_PLATEAU_GAIN * 100} % of the highest throughput: the plateau; range: Poisson noise of its completions or the points' spread`;
  if (curve(points, mode).length === 0)
    return { requests_per_s: null, output_tokens_per_s: null, reached: false, points: [], rule, range: null };
  const { plateau, reached } = plateauOf(points, mode, o);
  const mean = (f: (r: Result) => number) => round3(plateau.reduce((a, p) => a + f(p.point.result), 0) / plateau.length);
  const x = mean((r) => r.throughput.requests_per_s);
  return {
    requests_per_s: x,
    output_tokens_per_s: mean((r) => r.throughput.output_tokens_per_s),
    reached,
    points: plateau.map((p) => p.index),
    rule,
    range: plateauRange(plateau, x),
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
  const rule = `capacity at SLO = highest load of the leading run of points whose goodput fraction ≥ ${sig4(o.sloTarget * 100)} % (spec.slo defines a good request), bisected between the last passing and the first failing point to ${sig4(o.precision * 100)} %; range: up to the first point that misses the target beyond noise (Wilson ${sig4(CAPACITY_CONFIDENCE * 100)} % bound of its goodput fraction)`;
  const lo = passing ? loadOf(passing) : null;
  const hi = failing ? loadOf(failing) : null;
  const clearFail = curve(points, sweepMode(points)).find(({ point }) => {
    const n = point.result.requests.window.scheduled;
    return lo !== null && loadOf(point) > lo && n > 0 && wilson(point.result.goodput.requests, n, CAPACITY_Z).upper < o.sloTarget;
  });
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
    range: lo === null ? null : { lower: lo, upper: clearFail ? loadOf(clearFail.point) : hi },
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
