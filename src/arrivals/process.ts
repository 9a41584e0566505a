import { createRng, gamma, type Rng } from '../rng.js';

/**
 * An arrival process yields successive inter-arrival gaps in milliseconds.
 *
 * - constant: gap = 1000/rate exactly.
 * - poisson: arrivals of a Poisson process of intensity λ = rate/s have exponential gaps,
 *   gap = −ln(U)/λ with U uniform in (0, 1] (inverse-CDF sampling).
 * - gamma(k): gaps ~ Gamma(shape k, scale 1/(kλ)); the mean stays 1/λ whatever k, the
 *   coefficient of variation is 1/√k, so k = 1 is Poisson, k < 1 burstier, k > 1 smoother
 *   (vLLM's --burstiness).
 */
export type ArrivalKind = 'poisson' | 'constant' | 'gamma';

export interface ArrivalProcess {
  nextGapMs(): number;
}

/**
 * The process of unit intensity, drawn at any scale: `nextGap(m)` is the next gap of the same
 * process run at mean gap m (m = 1: the unit-rate process of time rescaling, src/arrivals/curve.ts).
 * Drawing at the scale instead of multiplying a unit gap afterwards keeps the arithmetic of a
 * constant rate exactly what it always was (gamma·(m/k) and (gamma/k)·m differ in the last bit).
 */
export interface UnitProcess {
  nextGap(meanGap: number): number;
}

export function createUnitProcess(kind: ArrivalKind, seed: number, burstiness = 1): UnitProcess {
  if (kind === 'constant') return { nextGap: (m) => m };
  const rng: Rng = createRng(seed);
  if (kind === 'poisson') return { nextGap: (m) => -Math.log(1 - rng.next()) * m };
  return { nextGap: (m) => gamma(rng, burstiness) * (m / burstiness) };
}

export function createArrivalProcess(kind: ArrivalKind, ratePerS: number, seed: number, burstiness = 1): ArrivalProcess {
  const meanGapMs = 1000 / ratePerS;
  const unit = createUnitProcess(kind, seed, burstiness);
  return { nextGapMs: () => unit.nextGap(meanGapMs) };
}
