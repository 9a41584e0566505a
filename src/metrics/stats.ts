import { gamma, type Rng } from '../rng.js';

/** Beta(a, b) as Gamma(a) / (Gamma(a) + Gamma(b)): exact, and O(1) for any shape. */
export function beta(rng: Rng, a: number, b: number): number {
  const x = gamma(rng, a);
  return x / (x + gamma(rng, b));
}

/**
 * Φ⁻¹(p), the standard normal quantile, by Acklam's rational approximation
 * (relative error < 1.2e-9): more than enough for a confidence level.
 */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) =>
    (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  );
}

/** Nearest-rank quantile of an ascending array, q in [0, 1]. */
export function quantileOfSorted(sorted: ArrayLike<number>, q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length - 1e-9) - 1));
  return sorted[i];
}

/**
 * Wilson score bounds of a proportion x/n at one-sided confidence z: unlike x/n ± z·SE
 * they stay inside [0, 1] and behave at 0 or n events, which is where error rates live.
 */
export function wilson(x: number, n: number, z: number): { lower: number; upper: number } {
  const p = x / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { lower: Math.max(0, centre - half), upper: Math.min(1, centre + half) };
}

/**
 * Φ(x), the standard normal CDF, via the complementary error function (Numerical Recipes'
 * erfc Chebyshev fit, |relative error| < 1.2e-7): for detection probabilities, where that is ample.
 */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/**
 * Student's t quantile t_ν(p) by the Cornish–Fisher expansion about the normal quantile
 * (Abramowitz & Stegun 26.7.5, terms to ν⁻⁴): at p = 0.95 it gives 2.91 for ν = 2 (exact 2.92),
 * 2.13 for ν = 4 (2.13), 6.0 for ν = 1 (6.31). A spread estimated from ν + 1 runs is itself
 * uncertain; its interval must use t_ν, not z, or a lucky low estimate from 3 replicates makes
 * an A/A pair fail.
 */
export function studentQuantile(p: number, df: number): number {
  const z = normalQuantile(p);
  if (!Number.isFinite(df) || df <= 0) return z;
  const z2 = z * z;
  const g1 = (z2 * z + z) / 4;
  const g2 = (5 * z2 * z2 * z + 16 * z2 * z + 3 * z) / 96;
  const g3 = (3 * z2 ** 3 * z + 19 * z2 * z2 * z + 17 * z2 * z - 15 * z) / 384;
  const g4 = (79 * z2 ** 4 * z + 776 * z2 ** 3 * z + 1482 * z2 * z2 * z - 1920 * z2 * z - 945 * z) / 92160;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
}
