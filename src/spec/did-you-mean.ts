/** Edit distance (insertions, deletions, substitutions), one row at a time. */
export function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

/**
 * The candidate a typo most likely meant, or undefined when none is close enough for the
 * suggestion to help rather than confuse: within a third of the word's length in edits (at
 * least 2), or extending it (`tpot` → `tpot_ms`). Ties go to the earlier candidate.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  const limit = Math.max(2, Math.floor(typed.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const known = candidate.toLowerCase();
    const d = levenshtein(typed, known);
    const close = d <= limit || (typed.length >= 3 && known.startsWith(typed));
    if (close && d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}
