import { blockHashes, tokenIds } from './tokenize.js';

/**
 * The prefix cache of a growing conversation. vLLM keeps the full blocks a sequence generated
 * in its prefix cache as well as its prompt's, so a chat's next turn — which resends the
 * previous prompt, then the reply, then a new message — finds the previous prompt and reply
 * cached up to the last full block. The simulator's reply is its output word once per token
 * (tokenize.ts), so a sequence's whole context is known when it is admitted: the prompt's
 * token ids followed by that word's id `outputTokens` times.
 */
const REPLY_ID = tokenIds('tok')[0];

/**
 * Block keys for the prompt's full blocks, and for the further full blocks of prompt + reply
 * (chained, so `reply` continues `prompt`). The reply's keys become shareable when the
 * sequence ends (KvCache.publishReply).
 */
export function contextBlockKeys(
  promptIds: readonly number[],
  outputTokens: number,
  blockSize: number,
): { prompt: number[]; reply: number[] } {
  const all = blockHashes([...promptIds, ...new Array<number>(outputTokens).fill(REPLY_ID)], blockSize);
  const full = Math.floor(promptIds.length / blockSize);
  return { prompt: all.slice(0, full), reply: all.slice(full) };
}
