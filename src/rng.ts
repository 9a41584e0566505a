/**
 * Seeded PRNG (sfc32, seeded through splitmix32): fast, 128-bit state, passes PractRand,
 * and reproducible across platforms — Math.random() is none of these.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function createRng(seed: number): Rng {
  const mix = splitmix32(seed);
  let a = mix(),
    b = mix(),
    c = mix(),
    d = mix();
  return {
    next() {
      const t = (((a + b) >>> 0) + d) >>> 0;
      d = (d + 1) >>> 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) >>> 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) >>> 0;
      return t / 4294967296;
    },
  };
}

/** Derives an independent stream for a named purpose, so adding one random draw never shifts another. */
export function deriveSeed(seed: number, purpose: string): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < purpose.length; i++) h = Math.imul(h ^ purpose.charCodeAt(i), 0x01000193) >>> 0;
  return splitmix32(h)();
}

/** Standard normal by Box–Muller (one of the pair is discarded: simplicity over a cached spare). */
export function normal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/**
 * Gamma(shape, 1) by Marsaglia–Tsang (2000); for shape < 1 it boosts with U^(1/shape),
 * which keeps the method exact for every shape > 0.
 */
export function gamma(rng: Rng, shape: number): number {
  if (shape < 1) return gamma(rng, shape + 1) * Math.pow(1 - rng.next(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number, v: number;
    do {
      x = normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - rng.next();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}
