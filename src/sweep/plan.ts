import type { SweepSpec } from '../spec/sweep-schema.js';
import { round3 } from '../numbers.js';

/**
 * The planned loads of a sweep that lists them (rates, from/to/steps, concurrency), lightest
 * first; empty for `auto`, whose ladder is grown from its probe as it runs (see autoLadder).
 * from/to/steps: linear spaces `steps` rates evenly, from + k·(to − from)/(steps − 1);
 * geometric spaces them by a constant ratio, from · (to/from)^(k/(steps − 1)) — equal steps in
 * log-rate, as docs/methodology.md's doubling ladder.
 */
export function plannedLoads(s: SweepSpec): number[] {
  if (s.rates) return [...s.rates].sort((a, b) => a - b);
  if (s.concurrency) return [...s.concurrency].sort((a, b) => a - b);
  if (s.from === undefined || s.to === undefined || s.steps === undefined) return [];
  const { from, to, steps } = s;
  return Array.from({ length: steps }, (_, k) =>
    round3(s.scale === 'geometric' ? from * (to / from) ** (k / (steps - 1)) : from + (k * (to - from)) / (steps - 1)),
  );
}

/**
 * The auto ladder's k-th rate: the probe's throughput X₁ (one request at a time, so X₁ = 1/W₀)
 * times growth^k. A batching server holds many sequences at once, so its capacity is a multiple
 * of X₁ and the ladder starts light; a server that runs one request at a time saturates at the
 * first step, and the fill points below it then find its knee.
 */
export const autoRate = (probeRate: number, growth: number, k: number): number => round3(probeRate * growth ** k);

/** `fill` rates evenly between the last load below saturation and the first one past it. */
export function fillLoads(below: number, past: number, fill: number): number[] {
  return Array.from({ length: fill }, (_, i) => round3(below + ((i + 1) * (past - below)) / (fill + 1)));
}

/** The guidellm profile's rates: n evenly between the synchronous rate x1 and the maximum throughput xt, both ends excluded. */
export function interpolatedLoads(x1: number, xt: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => round3(x1 + ((i + 1) * (xt - x1)) / (n + 1)));
}
