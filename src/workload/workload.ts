import type { Spec } from '../spec/types.js';
import { createRng, deriveSeed } from '../arrivals/rng.js';
import { sampleLength } from './lengths.js';
import { syntheticPrompt } from './prompts.js';

export interface WorkItem {
  prompt: string;
  promptTokens: number;
  maxTokens: number;
}

/**
 * The i-th request's prompt and output length. Input and output lengths draw from
 * separate seeded streams, so changing one distribution never changes the other's samples.
 */
export function createWorkload(w: Spec['workload']): { next(i: number): WorkItem } {
  const inputRng = createRng(deriveSeed(w.seed, 'input_tokens'));
  const outputRng = createRng(deriveSeed(w.seed, 'output_tokens'));
  const salt = deriveSeed(w.seed, 'prompt_salt');
  return {
    next(i) {
      const promptTokens = sampleLength(w.input_tokens, inputRng);
      const maxTokens = sampleLength(w.output_tokens, outputRng);
      return { prompt: syntheticPrompt(i, salt, promptTokens), promptTokens, maxTokens };
    },
  };
}
