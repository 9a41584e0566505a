import { createRng } from '../rng.js';
import type { OutputLengths } from './config.js';

/** A seeded uniform source in [0, 1): the project's one PRNG (src/rng.ts). */
export function seededRandom(seed: number): () => number {
  const rng = createRng(seed);
  return () => rng.next();
}

/**
 * A natural output length. Geometric is what a constant end-of-sequence probability of
 * 1/mean per token produces, which is how an unconstrained model stops.
 */
export function sampleOutputLength(d: OutputLengths, random: () => number): number {
  switch (d.dist) {
    case 'fixed':
      return d.value;
    case 'uniform':
      return d.min + Math.floor(random() * (d.max - d.min + 1));
    case 'geometric':
      return d.mean <= 1 ? 1 : 1 + Math.floor(Math.log(1 - random()) / Math.log(1 - 1 / d.mean));
  }
}
