import type { Rng } from '../rng.js';
import type { Message } from '../client/openai.js';
import type { Spec } from '../spec/types.js';
import { prefixText } from './prompts.js';

/**
 * Prefix control. By default every prompt is unique from its first word. A spec may ask for a
 * shared system prompt (`prefix.shared_tokens`, the same for every request) and/or prefix
 * groups (`prefix_groups`: G prefixes, e.g. popular documents or few-shot templates, each
 * request drawing one by Zipf popularity), so a prefix cache gets the hit rate real traffic
 * would give it, no more.
 */

/**
 * Zipf popularity over groups 0..G−1: P(g) = (g + 1)^−s / Σₖ (k + 1)^−s, group 0 the most
 * popular. s = 0 makes every group equally likely; s ≈ 1 is the classic skew of web and cache
 * traffic (about 80 % of requests on 20 % of the keys for large G).
 */
export function zipfProbabilities(groups: number, s: number): number[] {
  const raw = Array.from({ length: groups }, (_, g) => (g + 1) ** -s);
  const total = raw.reduce((a, b) => a + b, 0);
  return raw.map((w) => w / total);
}

/** Draws a group by inverse CDF (binary search), so a draw costs O(log G). */
export function zipfSampler(groups: number, s: number): (rng: Rng) => number {
  const cumulative: number[] = [];
  let sum = 0;
  for (const p of zipfProbabilities(groups, s)) cumulative.push((sum += p));
  return (rng) => {
    const u = rng.next() * sum;
    let lo = 0;
    let hi = groups - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** Words of each part of a request's system prompt; 0 when the part is not asked for. */
export interface PrefixWords {
  shared: number;
  group: number;
}

/**
 * The system message every request of `group` starts with: the shared prefix, then the
 * group's own. Null when the spec asks for no prefix (prompts are unique from the first word).
 */
export function prefixMessage(salt: number, words: PrefixWords, group: number | null): Message | null {
  const parts: string[] = [];
  if (words.shared > 0) parts.push(prefixText(salt, null, words.shared));
  if (group !== null && words.group > 0) parts.push(prefixText(salt, group, words.group));
  return parts.length === 0 ? null : { role: 'system', content: parts.join(' ') };
}

/** The words of each prefix part that make the spec's prefix token counts, at the calibrated tokens per word. */
export function prefixWords(w: Spec['workload'], tokensPerWord: number): PrefixWords {
  const words = (tokens: number | undefined) => (tokens ? Math.max(1, Math.round(tokens / tokensPerWord)) : 0);
  return { shared: words(w.prefix?.shared_tokens), group: words(w.prefix_groups?.tokens) };
}
