/**
 * The simulator's tokenizer — exact and deterministic, so a client can predict every count:
 *
 *   one token per whitespace-separated word (JavaScript `\S+` runs) of the prompt text.
 *
 * Completions: the `prompt` string (or, for a token-id array, its length). Chat: the words of
 * every message's content (a string, or the `text` parts of a content array) — no chat
 * template, no special tokens. Output tokens are the word " tok", one per SSE chunk.
 * Token ids are a hash of the word, so equal words get equal ids and equal prompts share
 * prefix-cache blocks.
 */

const VOCAB_SIZE = 128256; // Llama 3's

const WORD = /\S+/g;

/** The prompt text of a chat request: all message contents, one per line. */
export function chatText(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const parts: string[] = [];
  for (const m of messages) {
    const content = (m as { content?: unknown } | null)?.content;
    if (typeof content === 'string') parts.push(content);
    else if (Array.isArray(content)) {
      for (const p of content as unknown[]) {
        const text = (p as { text?: unknown } | null)?.text;
        if (typeof text === 'string') parts.push(text);
      }
    }
  }
  return parts.join('\n');
}

export function countTokens(text: string): number {
  let n = 0;
  WORD.lastIndex = 0;
  while (WORD.exec(text)) n++;
  return n;
}

export function tokenIds(text: string): number[] {
  const ids: number[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m; m = WORD.exec(text)) ids.push(fnv1a(m[0]) % VOCAB_SIZE);
  return ids;
}

/**
 * One key per full block of `blockSize` tokens, each covering the whole prefix up to its
 * block (as vLLM chains block hashes), so a hit on block i implies hits on 0..i-1. Two
 * 32-bit lanes give a 53-bit key: collisions are negligible for any realistic cache.
 */
export function blockHashes(ids: readonly number[], blockSize: number): number[] {
  const keys: number[] = [];
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let end = blockSize; end <= ids.length; end += blockSize) {
    for (let i = end - blockSize; i < end; i++) {
      a = Math.imul(a ^ ids[i], 0x01000193) >>> 0;
      b = Math.imul(b ^ ids[i], 0x5bd1e995);
      b = (b ^ (b >>> 13)) >>> 0;
    }
    keys.push((a & 0x1fffff) * 4294967296 + b);
  }
  return keys;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
