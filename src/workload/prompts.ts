/**
 * Synthetic prompt text with an exact word count. Real tokenizers do not count one token per
 * word, so calibrate.ts measures the target's tokens per word of this vocabulary and the
 * fixed overhead of its request format, and workload.ts asks for the word count that gives
 * the requested token count.
 *
 * The vocabulary is common English words, each one token in the usual BPE vocabularies, so
 * the count grows linearly with the words and a calibration at a few lengths extrapolates.
 */
const VOCAB = [
  'the',
  'model',
  'serves',
  'tokens',
  'under',
  'load',
  'while',
  'latency',
  'grows',
  'with',
  'queue',
  'depth',
  'and',
  'batch',
  'size',
  'so',
  'we',
  'measure',
  'every',
  'request',
  'from',
  'its',
  'intended',
  'send',
  'time',
  'not',
  'when',
  'it',
  'left',
  'client',
];

/** `variant` shifts the walk through the vocabulary (13 is coprime with its size, so every word recurs evenly). */
function filler(parts: string[], variant: number, from: number, to: number): string[] {
  for (let i = from; i < to; i++) parts[i] = VOCAB[(variant * 7 + i * 13) % VOCAB.length]!;
  return parts;
}

/**
 * A request's own text. Its first word is unique to (salt, request), so no two requests share
 * even their first prefix-cache block and the cache cannot flatter the result; the salt
 * changes every run, so neither can a previous run's cache.
 */
export function requestText(salt: number, id: number, words: number): string {
  const parts = new Array<string>(words);
  parts[0] = `r${salt.toString(36)}x${id.toString(36)}`;
  return filler(parts, id, 1, words).join(' ');
}

/**
 * A prefix's text: the shared system prompt (group null) or a prefix group's. Its first word
 * names (salt, prefix), so prefixes differ from each other and from other runs'.
 */
export function prefixText(salt: number, group: number | null, words: number): string {
  const parts = new Array<string>(words);
  parts[0] = `p${salt.toString(36)}${group === null ? 's' : `g${group}`}`;
  return filler(parts, group === null ? 0 : group + 1, 1, words).join(' ');
}

const WORD = /\S+/g;

/** Whitespace-separated words, the unit prompts are sized in (and the simulator's token). */
export function countWords(text: string): number {
  return text.match(WORD)?.length ?? 0;
}

/**
 * The text of one shared block of a replayed trace (a Mooncake hash id): the same id gives the
 * same words, so requests that share the block share its text and the server's prefix cache
 * sees the trace's reuse. Its first word names (salt, id), so blocks differ from each other.
 */
export function blockText(salt: number, id: number, words: number): string {
  const parts = new Array<string>(words);
  parts[0] = `b${salt.toString(36)}h${id.toString(36)}`;
  return filler(parts, id + 3, 1, words).join(' ');
}
