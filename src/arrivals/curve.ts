/**
 * A rate curve λ(t): the intensity of the arrival process at each instant, in requests per
 * second, with t in ms from the start of the run. It is piecewise linear — a list of segments,
 * each linear from `fromRate` at `fromMs` to `toRate` at `toMs`, the last one unbounded and
 * flat — which covers every load pattern: a constant rate (one flat segment), a ramp (one
 * sloped segment), steps and spikes (flat segments whose rates jump at their boundaries).
 *
 * Time rescaling. Let N(u) be a unit-rate process (Poisson, or a gamma renewal process with
 * mean gap 1) and Λ(t) = ∫₀ᵗ λ(s) ds its cumulative intensity. Then N(Λ(t)) has intensity
 * λ(t): in a short interval [t, t + dt) it expects Λ(t + dt) − Λ(t) = λ(t)·dt arrivals. So the
 * k-th arrival is at t_k = Λ⁻¹(S_k), where S_k is the k-th arrival of the unit process (the sum
 * of k unit gaps). Λ is continuous and non-decreasing; on a segment it is a quadratic, so
 * Λ⁻¹ has a closed form there:
 *
 *   on [a, b) with λ(a + x) = λa + k·x (k = (λb − λa)/(b − a)), from a point x₀ inside it the
 *   mass of the next d ms is  M(d) = λ₀·d + k·d²/2,  λ₀ = λa + k·x₀.
 *   M(d) = E solves to d = (−λ₀ + √(λ₀² + 2kE)) / k, which for k → 0 loses precision; the same
 *   root multiplied out by its conjugate, d = 2E / (λ₀ + √(λ₀² + 2kE)), is stable for every k
 *   (k = 0 gives d = E/λ₀) and is what `solveWithin` computes.
 *
 * Rates here are per second and times in ms, so the mass of an interval is ∫ λ dt / 1000.
 */
export interface RateSegment {
  fromMs: number;
  /** Infinity for the last segment. */
  toMs: number;
  fromRate: number;
  /** Equal to fromRate for a flat segment (always for the last one). */
  toRate: number;
}

export interface RateCurve {
  segments: RateSegment[];
}

/** λ(t) = rate everywhere: the schedule loadgate has always built. */
export function constantCurve(ratePerS: number): RateCurve {
  return { segments: [{ fromMs: 0, toMs: Infinity, fromRate: ratePerS, toRate: ratePerS }] };
}

/**
 * A curve through knots (t ms, rate): linear between consecutive knots, flat at the last rate
 * after the last knot. Two knots at the same t make a step (the rate jumps there).
 */
export function curveThrough(knots: { t: number; rate: number }[]): RateCurve {
  const segments: RateSegment[] = [];
  for (let i = 0; i + 1 < knots.length; i++) {
    const [a, b] = [knots[i], knots[i + 1]];
    if (b.t > a.t) segments.push({ fromMs: a.t, toMs: b.t, fromRate: a.rate, toRate: b.rate });
  }
  const last = knots[knots.length - 1];
  segments.push({ fromMs: last.t, toMs: Infinity, fromRate: last.rate, toRate: last.rate });
  // Neighbouring flat segments of one rate are one segment: a constant rate written as several
  // knots must stay one flat piece, so its schedule is the constant rate's to the last bit.
  const merged: RateSegment[] = [];
  for (const s of segments) {
    const prev = merged[merged.length - 1];
    if (prev && isFlat(prev) && isFlat(s) && prev.fromRate === s.fromRate) prev.toMs = s.toMs;
    else merged.push({ ...s });
  }
  return { segments: merged };
}

/** Every rate of the curve divided by n: one of n independent generators' share (superposition adds intensities). */
export function divideCurve(c: RateCurve, n: number): RateCurve {
  return { segments: c.segments.map((s) => ({ ...s, fromRate: s.fromRate / n, toRate: s.toRate / n })) };
}

export const isFlat = (s: RateSegment) => s.fromRate === s.toRate;

/** λ on segment s at t (per second), t within it. */
function rateOn(s: RateSegment, tMs: number): number {
  if (isFlat(s) || tMs <= s.fromMs) return s.fromRate;
  return s.fromRate + ((s.toRate - s.fromRate) * (Math.min(tMs, s.toMs) - s.fromMs)) / (s.toMs - s.fromMs);
}

/** λ at t (per second). */
export function rateAt(c: RateCurve, tMs: number): number {
  return rateOn(c.segments.find((x) => tMs < x.toMs) ?? c.segments[c.segments.length - 1], tMs);
}

/** Expected arrivals in [a, b) ms within one segment: the trapezoid is exact for a linear λ. */
function massWithin(s: RateSegment, a: number, b: number): number {
  return b > a ? ((rateOn(s, a) + rateOn(s, b)) / 2) * ((b - a) / 1000) : 0;
}

/** Λ(b) − Λ(a): expected arrivals in [a, b) ms. */
export function expectedArrivals(c: RateCurve, a: number, b: number): number {
  let m = 0;
  for (const s of c.segments) m += massWithin(s, Math.max(a, s.fromMs), Math.min(b, s.toMs));
  return m;
}

/** d (ms) with mass(t, t + d) = e inside segment s, assuming the segment holds that much mass after t. */
function solveWithin(s: RateSegment, t: number, e: number): number {
  const l0 = rateOn(s, t) / 1000;
  const k = isFlat(s) ? 0 : (s.toRate - s.fromRate) / 1000 / (s.toMs - s.fromMs);
  return (2 * e) / (l0 + Math.sqrt(Math.max(0, l0 * l0 + 2 * k * e)));
}

/**
 * Λ⁻¹(Λ(t) + e) for t inside segment `i`: the time at which `e` more expected arrivals have
 * accumulated, and the segment it falls in. Infinity when the curve never holds that much more.
 */
export function advanceBy(c: RateCurve, i: number, t: number, e: number): { t: number; i: number } {
  let rest = e;
  for (let j = i; j < c.segments.length; j++) {
    const s = c.segments[j];
    const from = Math.max(t, s.fromMs);
    const room = s.toMs === Infinity ? (s.fromRate > 0 ? Infinity : 0) : massWithin(s, from, s.toMs);
    if (rest < room) return { t: from + solveWithin(s, from, rest), i: j };
    rest -= room;
  }
  return { t: Infinity, i: c.segments.length - 1 };
}
