import { normalCdf, normalQuantile } from '../metrics/stats.js';

/*
 * The smallest change a comparison can see. A rule fails when the change AND its one-sided
 * bound at the gate's confidence are beyond the allowed change T (regression.ts). Let h be the
 * distance from the point change to that bound (the interval's half-width on the tested side);
 * then the change's standard error is SE ≈ h / z, z = Φ⁻¹(confidence), and a true change δ is
 * caught when the observed one exceeds T + h:
 *     P(caught | δ) = Φ((δ − T − h) / SE).
 * The minimal detectable effect at power π (the change caught with probability π) is therefore
 *     MDE = T + h + z_π · SE = T + h · (1 + z_π / z).
 * π = 80 %, the usual choice in power analysis. With the same sample sizes and noise, a change
 * of MDE or more would have failed the rule four times out of five; far below it, almost never.
 */
export const DETECTION_POWER = 0.8;

/** The MDE (a rise, in the rule's unit) for allowed change `threshold` and tested-side half-width `half`. */
export function detectableChange(threshold: number, half: number, z: number, power = DETECTION_POWER): number {
  return threshold + half * (1 + normalQuantile(power) / z);
}

/** P(the rule fails) for a true change `delta` (same unit and sign convention as `threshold`). */
export function detectionProbability(delta: number, threshold: number, half: number, z: number): number {
  if (half <= 0) return delta > threshold ? 1 : 0;
  return normalCdf((delta - threshold - half) / (half / z));
}

/**
 * For a fall judged in log space (throughput): fails when log(current/baseline) + z·se < log(1 + limit),
 * limit < 0. MDE at power π, as a relative fall: exp(log(1 + limit) − (z + z_π)·se) − 1.
 */
export function detectableFall(limit: number, se: number, z: number, power = DETECTION_POWER): number {
  return Math.exp(Math.log(1 + limit) - (z + normalQuantile(power)) * se) - 1;
}
