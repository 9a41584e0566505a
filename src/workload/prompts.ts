/**
 * Synthetic prompts with an exact word count. The simulator counts one token per
 * whitespace-separated word; real tokenizers differ, which is why delivered prompt
 * lengths are measured from `usage` and reported beside the requested ones.
 *
 * Each prompt starts with a request-unique word so no two prompts share a prefix
 * block and prefix caches cannot flatter the result.
 */
const VOCAB = [
  'the', 'model', 'serves', 'tokens', 'under', 'load', 'while', 'latency', 'grows', 'with',
  'queue', 'depth', 'and', 'batch', 'size', 'so', 'we', 'measure', 'every', 'request',
  'from', 'its', 'intended', 'send', 'time', 'not', 'when', 'it', 'left', 'client',
];

export function syntheticPrompt(requestId: number, runSalt: number, words: number): string {
  const parts = new Array<string>(words);
  parts[0] = `r${runSalt.toString(36)}x${requestId.toString(36)}`;
  for (let i = 1; i < words; i++) parts[i] = VOCAB[(requestId * 7 + i * 13) % VOCAB.length]!;
  return parts.join(' ');
}
