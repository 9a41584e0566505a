import { createRng, deriveSeed, type Rng } from '../rng.js';
import type { Spec } from '../spec/types.js';

/**
 * The workload's random stream for one purpose (input lengths, output lengths, prefix groups,
 * dataset picks, …), seeded from workload.seed and the purpose's name: separate streams, so
 * changing how one is drawn never moves another.
 */
export const stream = (w: Spec['workload'], purpose: string): Rng => createRng(deriveSeed(w.seed, purpose));
