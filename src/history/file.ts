import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { checkOutputPath, writeFileAtomic } from '../result/write.js';
import { HISTORY_LINE_VERSION, type HistoryLine } from './types.js';

/** A history file that cannot be read as one, in one line naming the file and the line. */
export class HistoryError extends Error {}

/**
 * The lines of a history (JSON Lines: one object per line, oldest first). Blank lines are
 * skipped; a line that is not a history line is an error naming it, never skipped silently.
 */
export function parseHistory(text: string, name: string): HistoryLine[] {
  const out: HistoryLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch (err) {
      throw new HistoryError(`${name} line ${i + 1} is not JSON (${(err as Error).message}); expected one history line per line`);
    }
    const problem = lineProblem(line);
    if (problem) throw new HistoryError(`${name} line ${i + 1} ${problem}; expected a line written by loadgate history append`);
    out.push(line as HistoryLine);
  });
  return out;
}

function lineProblem(x: unknown): string | null {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return 'is not an object';
  const l = x as Partial<HistoryLine>;
  if (typeof l.v !== 'number' || l.v > HISTORY_LINE_VERSION) return `has version ${String(l.v)}, which this loadgate does not know`;
  if (typeof l.run_id !== 'string' || l.run_id === '') return 'has no run_id';
  if (typeof l.date !== 'string') return 'has no date';
  if (typeof l.metrics !== 'object' || l.metrics === null) return 'has no metrics';
  return null;
}

export interface Appended {
  /** The whole new text of the history. */
  text: string;
  added: HistoryLine[];
  /** Run ids already in the history (or given twice): not written again. */
  duplicates: string[];
  /** How many of the oldest lines were dropped to keep at most `max`. */
  dropped: number;
}

/**
 * The history with `lines` appended: a run id already present is not written again, and past
 * lines are kept byte for byte; only when the history would pass `max` lines are the oldest
 * dropped. `max` 0 keeps every line.
 */
export function appendToHistory(text: string, lines: readonly HistoryLine[], max: number, name: string): Appended {
  const existing = parseHistory(text, name);
  const seen = new Set(existing.map((l) => l.run_id));
  const added: HistoryLine[] = [];
  const duplicates: string[] = [];
  for (const l of lines) {
    if (seen.has(l.run_id)) duplicates.push(l.run_id);
    else added.push(l);
    seen.add(l.run_id);
  }
  const kept = text.split('\n').filter((raw) => raw.trim() !== '');
  const all = [...kept, ...added.map((l) => JSON.stringify(l))];
  const dropped = max > 0 ? Math.max(0, all.length - max) : 0;
  return { text: all.length > dropped ? `${all.slice(dropped).join('\n')}\n` : '', added, duplicates, dropped };
}

/** A history file's text; a file not yet written is an empty history. */
export function readHistoryText(path: string): string {
  if (!existsSync(path)) return '';
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new HistoryError(`history ${path} cannot be read (${(err as NodeJS.ErrnoException).code}); expected a readable file`);
  }
}

export const readHistoryFile = (path: string) => parseHistory(readHistoryText(path), path);

/**
 * Appends to a history file. When nothing is dropped, the new lines are appended to the file as
 * it is (past lines are never rewritten); past `max`, the file is replaced atomically.
 */
export function appendHistoryFile(path: string, lines: readonly HistoryLine[], max: number): Appended {
  checkOutputPath(path, '--history');
  const before = readHistoryText(path);
  const result = appendToHistory(before, lines, max, path);
  if (result.added.length === 0) return result;
  if (result.dropped === 0 && before !== '') {
    const sep = before.endsWith('\n') ? '' : '\n';
    appendFileSync(path, `${sep}${result.added.map((l) => JSON.stringify(l)).join('\n')}\n`);
  } else writeFileAtomic(path, result.text, '--history');
  return result;
}
