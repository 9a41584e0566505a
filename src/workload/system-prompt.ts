import type { Message } from '../client/openai.js';
import type { Rng } from '../rng.js';
import type { CacheTally } from './describe.js';
import type { WorkloadInputs } from './inputs.js';
import { prefixMessage, prefixWords, zipfSampler } from './prefix.js';
import { stream } from './streams.js';
import type { Calibration } from './types.js';

/** The system message a request (or a whole session) starts with, and what it adds to the cache tally. */
export interface SystemPick {
  message: Message | null;
  /** Prompt tokens of it that an unbounded cache already held when it was picked. */
  cachedTokens: number;
}

/**
 * The shared system prompt and prefix groups of the spec (`prefix`, `prefix_groups`), drawn per
 * call: the shared part is the same for every caller, the group is drawn by Zipf popularity.
 * One message per group is built once, so the text is identical each time and not rebuilt on
 * the hot path. Synthetic requests, sessions and trace replay all take their system prompt here.
 */
export function systemPrompts(inputs: WorkloadInputs, calibration: Calibration, salt: number): () => SystemPick {
  const w = inputs.spec.workload;
  const groupRng: Rng = stream(w, 'prefix_groups');
  const pickGroup = w.prefix_groups ? zipfSampler(w.prefix_groups.groups, w.prefix_groups.zipf_s) : undefined;
  const words = prefixWords(w, calibration.tokens_per_word);
  const systems = new Map<number | null, Message | null>();
  let picks = 0;
  return () => {
    const group = pickGroup ? pickGroup(groupRng) : null;
    const seen = systems.has(group);
    if (!seen) systems.set(group, prefixMessage(salt, words, group));
    // The shared prompt is cached once any request has gone; a group's once that group has.
    let cachedTokens = picks > 0 ? (w.prefix?.shared_tokens ?? 0) : 0;
    if (group !== null && seen) cachedTokens += w.prefix_groups!.tokens;
    picks++;
    return { message: systems.get(group) ?? null, cachedTokens };
  };
}

/** Adds one prompt to the tally. */
export function tally(cache: CacheTally, cachedTokens: number, promptTokens: number): void {
  cache.cacheable += cachedTokens;
  cache.total += promptTokens;
}
