import { createRng, gamma, type Rng } from './rng.js';

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

export function createArrivalProcess(kind: ArrivalKind, ratePerS: number, seed: number, burstiness = 1): ArrivalProcess {
  const meanGapMs = 1000 / ratePerS;
  if (kind === 'constant') return { nextGapMs: () => meanGapMs };
  const rng: Rng = createRng(seed);
  if (kind === 'poisson') return { nextGapMs: () => -Math.log(1 - rng.next()) * meanGapMs };
  return { nextGapMs: () => gamma(rng, burstiness) * (meanGapMs / burstiness) };
}
