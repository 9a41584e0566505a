import type { Rng } from '../rng.js';

/**
 * E-divisive means (Matteson & James, "A Nonparametric Approach for Multiple Change Point
 * Analysis of Multivariate Data", JASA 2014), the method MongoDB's performance team runs over
 * nightly series (Daly et al., ICPE 2020) and Apache Otava (formerly Hunter) publishes.
 *
 * For a split of a segment into X = z[s..τ) (m values) and Y = z[τ..κ) (n values), the energy
 * distance with exponent a ∈ (0, 2) is
 *
 *   Ê(X, Y) = 2/(mn) Σᵢⱼ |Xᵢ − Yⱼ|ᵃ − C(m,2)⁻¹ Σᵢ<ₖ |Xᵢ − Xₖ|ᵃ − C(n,2)⁻¹ Σⱼ<ₖ |Yⱼ − Yₖ|ᵃ
 *
 * (zero when X and Y come from one distribution, positive otherwise), scaled to
 * Q̂ = mn/(m+n) · Ê so that long segments weigh more. The candidate change point is the τ that
 * maximizes Q̂ over every current segment (κ at the segment's end by default, see `kappa`). Whether it is real is a permutation test:
 * the values are shuffled within each segment, the maximum is found again, and the p-value is
 * (1 + #{permuted maximum ≥ observed}) / (1 + permutations). A significant point splits its
 * segment and the search repeats; the first insignificant one ends it. One outlier night is in
 * every permutation too, wherever it lands, so it raises the permuted maxima as much as the
 * observed one and does not make a change point.
 */
export interface EDivisiveOptions {
  /** Significance level of each permutation test. */
  alpha: number;
  permutations: number;
  /** Fewest values on either side of a change point (≥ 2: a within-sum needs a pair). */
  minSize: number;
  rng: Rng;
  /** The distance exponent a; 1 as in the method's default. */
  exponent?: number;
  /**
   * `end` (default): Y runs to the end of its segment, κ fixed, as MongoDB's implementation
   * (Daly et al.) and Hunter/Otava do; `search`: κ is searched too, as in Matteson & James, which
   * also finds a short bump inside a segment but, searching more splits, raises the permuted
   * maxima and loses power on a plain step.
   */
  kappa?: 'end' | 'search';
}

export interface Split {
  /** The first index after the change. */
  index: number;
  pValue: number;
  statistic: number;
}

interface Candidate {
  tau: number;
  q: number;
}

/** The significant change points of `z`, in index order. */
export function eDivisive(z: readonly number[], o: EDivisiveOptions): Split[] {
  const minSize = Math.max(2, Math.floor(o.minSize));
  const a = o.exponent ?? 1;
  const bounds = [0, z.length];
  const found: Split[] = [];
  for (;;) {
    const best = bestOverSegments(z, bounds, minSize, a, o.kappa ?? 'end');
    if (best === null || !(best.q > 0)) break;
    const pValue = permutationP(z, bounds, best.q, { ...o, minSize, exponent: a, kappa: o.kappa ?? 'end' });
    if (pValue > o.alpha) break;
    found.push({ index: best.tau, pValue, statistic: best.q });
    bounds.push(best.tau);
    bounds.sort((x, y) => x - y);
  }
  return found.sort((x, y) => x.index - y.index);
}

/** The best split over the segments between consecutive bounds, τ as an index of z. */
function bestOverSegments(
  z: readonly number[],
  bounds: readonly number[],
  minSize: number,
  a: number,
  kappa: 'end' | 'search',
): Candidate | null {
  let best: Candidate | null = null;
  for (let i = 0; i + 1 < bounds.length; i++) {
    const c = bestSplit(z.slice(bounds[i], bounds[i + 1]), minSize, a, kappa);
    if (c && (best === null || c.q > best.q)) best = { tau: bounds[i] + c.tau, q: c.q };
  }
  return best;
}

/**
 * The τ and κ maximizing Q̂ in one segment, in O(n²): with P[k][i] = Σⱼ<ᵢ |zⱼ − zₖ|ᵃ, growing Y
 * by its next value zₖ adds P[k][τ] to the cross sum and P[k][k] − P[k][τ] to Y's within-sum,
 * and growing X by z_τ adds P[τ][τ] to X's.
 */
export function bestSplit(z: readonly number[], minSize: number, a: number, kappa: 'end' | 'search' = 'end'): Candidate | null {
  const n = z.length;
  if (n < 2 * minSize) return null;
  const w = n + 1;
  const P = new Float64Array(n * w);
  for (let k = 0; k < n; k++) for (let i = 0; i < n; i++) P[k * w + i + 1] = P[k * w + i] + Math.abs(z[i] - z[k]) ** a;
  let best: Candidate | null = null;
  let withinX = 0;
  for (let tau = 1; tau <= n - minSize; tau++) {
    withinX += P[(tau - 1) * w + tau - 1];
    if (tau < minSize) continue;
    let cross = 0;
    let withinY = 0;
    for (let k = tau; k < n; k++) {
      cross += P[k * w + tau];
      withinY += P[k * w + k] - P[k * w + tau];
      const m = tau;
      const ny = k + 1 - tau;
      if (ny < minSize || (kappa === 'end' && k < n - 1)) continue;
      const e = (2 * cross) / (m * ny) - withinX / ((m * (m - 1)) / 2) - withinY / ((ny * (ny - 1)) / 2);
      const q = ((m * ny) / (m + ny)) * e;
      if (best === null || q > best.q) best = { tau, q };
    }
  }
  return best;
}

/** Permutation p-value of the observed maximum; stops early once it cannot reach alpha. */
function permutationP(
  z: readonly number[],
  bounds: readonly number[],
  observed: number,
  o: EDivisiveOptions & { minSize: number; exponent: number; kappa: 'end' | 'search' },
): number {
  const limit = o.alpha * (o.permutations + 1) - 1;
  let over = 0;
  for (let r = 0; r < o.permutations; r++) {
    const shuffled = shuffleWithin(z, bounds, o.rng);
    const q = bestOverSegments(shuffled, bounds, o.minSize, o.exponent, o.kappa)?.q ?? 0;
    if (q >= observed) over++;
    if (over > limit) return (over + 1) / (o.permutations + 1); // already above alpha, whatever the rest would show
  }
  return (over + 1) / (o.permutations + 1);
}

/** A copy of z with each segment's values shuffled in place (Fisher–Yates), segments kept apart. */
function shuffleWithin(z: readonly number[], bounds: readonly number[], rng: Rng): number[] {
  const out = z.slice();
  for (let s = 0; s + 1 < bounds.length; s++) {
    for (let i = bounds[s + 1] - 1; i > bounds[s]; i--) {
      const j = bounds[s] + Math.floor(rng.next() * (i - bounds[s] + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
  }
  return out;
}
