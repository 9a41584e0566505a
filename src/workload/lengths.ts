import type { LengthDist } from '../spec/types.js';
import { normal, type Rng } from '../arrivals/rng.js';

/** Draws one token count from a length distribution; always an integer ≥ 1. */
export function sampleLength(d: LengthDist, rng: Rng): number {
  switch (d.dist) {
    case 'fixed':
      return d.value;
    case 'uniform':
      return d.min + Math.floor(rng.next() * (d.max - d.min + 1));
    case 'normal': {
      const v = Math.round(d.mean + d.stddev * normal(rng));
      return Math.max(d.min ?? 1, Math.min(d.max ?? Number.MAX_SAFE_INTEGER, v), 1);
    }
  }
}

/** The distribution's intended mean, to compare with what was delivered (clipping of normal ignored). */
export function meanOf(d: LengthDist): number {
  switch (d.dist) {
    case 'fixed':
      return d.value;
    case 'uniform':
      return (d.min + d.max) / 2;
    case 'normal':
      return d.mean;
  }
}
