import type { Rng } from '../rng.js';
import { SpecError } from '../spec/error.js';
import { figure, MAX_DATASET_ENTRIES, MAX_TOKENS_PER_REQUEST } from '../spec/limits.js';
import { jsonProblem } from '../spec/read-file.js';
import type { DatasetSpec } from '../spec/types.js';
import { promptText, type Message } from '../client/openai.js';
import { countWords } from './prompts.js';

/**
 * Prompt datasets. Two formats:
 *  - sharegpt: a JSON list (or JSONL) of `{conversations: [{from, value}, ...]}`. The first
 *    human/user turn is the prompt and the turn after it the reference answer, whose length
 *    becomes the output length (as `vllm bench serve --dataset-name sharegpt` does). With
 *    workload.sessions, every human turn is a turn of the conversation (`turns`).
 *    Conversations without a human turn and a reply are skipped and counted.
 *  - jsonl: one object per line with `prompt` (text) or `messages` (chat messages) and
 *    optionally `max_tokens`, the output length to ask for.
 * A malformed entry is an error naming the file and line (or entry, in a JSON list).
 */

export interface DatasetEntry {
  messages: Message[];
  /** Words of all messages together, the unit token counts are estimated from. */
  words: number;
  /** jsonl: the output length the entry asks for, in tokens. */
  maxTokens?: number;
  /** sharegpt: words of the reference answer; calibration turns them into tokens. */
  answerWords?: number;
  /** sharegpt: every human turn with the words of the reply after it, for multi-turn sessions. */
  turns?: { text: string; words: number; answerWords: number }[];
}

export interface Dataset {
  entries: DatasetEntry[];
  /** ShareGPT conversations without a human turn followed by a reply. */
  skipped: number;
}

const JSONL_EXPECTED = 'expected {"prompt": "..."} or {"messages": [{"role": "user", "content": "..."}]}, optionally with "max_tokens"';
const SHAREGPT_EXPECTED = 'expected {"conversations": [{"from": "human", "value": "..."}, {"from": "gpt", "value": "..."}]}';
const ROLES = new Set(['system', 'user', 'assistant']);
const HUMAN = new Set(['human', 'user']);

/** `name` is how messages call the file (the path as the spec wrote it). */
export function parseDataset(text: string, name: string, format: DatasetSpec['format']): Dataset {
  const dataset: Dataset = { entries: [], skipped: 0 };
  const read = format === 'sharegpt' ? readShareGpt : readJsonlEntry;
  for (const { where, value } of records(text.replace(/^\uFEFF/, ''), name, format === 'sharegpt' ? SHAREGPT_EXPECTED : JSONL_EXPECTED)) {
    const entry = read(value, where);
    if (entry) dataset.entries.push(entry);
    else dataset.skipped++;
  }
  if (dataset.entries.length === 0) {
    throw new SpecError(
      `${name}: holds no usable entry${dataset.skipped ? ` (${dataset.skipped} conversations without a human turn and a reply)` : ''}; expected at least one`,
    );
  }
  return dataset;
}

/** The file's records with where each is: `file:line` for JSONL, `file: entry N` for a JSON list. */
function* records(text: string, name: string, expected: string): Generator<{ where: string; value: unknown }> {
  if (text.trimStart().startsWith('[')) {
    let list: unknown[];
    try {
      list = JSON.parse(text) as unknown[];
    } catch (err) {
      throw new SpecError(`${name}: not valid JSON (${jsonProblem(err, text)}); expected a JSON list, or one JSON object per line`);
    }
    if (!Array.isArray(list)) throw new SpecError(`${name}: not a JSON list; expected a JSON list, or one JSON object per line`);
    tooMany(list.length, name);
    for (let i = 0; i < list.length; i++) yield { where: `${name}: entry ${i + 1}`, value: list[i] };
    return;
  }
  const lines = text.split(/\r?\n/);
  tooMany(lines.length, name);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `${name}:${i + 1}`;
    try {
      yield { where, value: JSON.parse(line) };
    } catch (err) {
      if (err instanceof SpecError) throw err;
      throw new SpecError(`${where}: not valid JSON (${jsonProblem(err)}); ${expected}`);
    }
  }
}

function tooMany(n: number, name: string): void {
  if (n > MAX_DATASET_ENTRIES)
    throw new SpecError(
      `${name}: holds more than ${figure(MAX_DATASET_ENTRIES)} entries; expected at most that many (a run samples from them)`,
    );
}

function readJsonlEntry(value: unknown, where: string): DatasetEntry {
  if (!isObject(value)) throw new SpecError(`${where}: not a JSON object; ${JSONL_EXPECTED}`);
  let messages: Message[];
  if (typeof value.prompt === 'string') {
    if (value.prompt.trim() === '') throw new SpecError(`${where}: "prompt" is empty; expected the prompt text`);
    messages = [{ role: 'user', content: value.prompt }];
  } else if (value.messages !== undefined) {
    messages = readMessages(value.messages, where);
  } else {
    throw new SpecError(`${where}: missing "prompt" or "messages"; ${JSONL_EXPECTED}`);
  }
  const maxTokens = value.max_tokens;
  if (
    maxTokens !== undefined &&
    (!Number.isInteger(maxTokens) || (maxTokens as number) < 1 || (maxTokens as number) > MAX_TOKENS_PER_REQUEST)
  ) {
    throw new SpecError(
      `${where}: "max_tokens" is ${typeof maxTokens === 'number' ? maxTokens : `a ${typeof maxTokens}`}; expected a positive integer of at most ${figure(MAX_TOKENS_PER_REQUEST)}`,
    );
  }
  const entry: DatasetEntry = { messages, words: countWords(promptText(messages)) };
  if (maxTokens !== undefined) entry.maxTokens = maxTokens as number;
  return entry;
}

function readMessages(value: unknown, where: string): Message[] {
  if (!Array.isArray(value) || value.length === 0) throw new SpecError(`${where}: "messages" is not a non-empty list; ${JSONL_EXPECTED}`);
  return value.map((m, i) => {
    if (!isObject(m) || typeof m.content !== 'string')
      throw new SpecError(`${where}: messages[${i}] has no text "content"; expected {"role": "user", "content": "..."}`);
    if (typeof m.role !== 'string' || !ROLES.has(m.role))
      throw new SpecError(
        `${where}: messages[${i}].role is ${m.role === undefined ? 'missing; expected system, user or assistant' : 'not system, user or assistant; expected one of them'}`,
      );
    return { role: m.role as Message['role'], content: m.content };
  });
}

function readShareGpt(value: unknown, where: string): DatasetEntry | null {
  if (!isObject(value) || !Array.isArray(value.conversations))
    throw new SpecError(`${where}: missing "conversations"; ${SHAREGPT_EXPECTED}`);
  const turns = value.conversations;
  turns.forEach((t, i) => {
    if (!isObject(t) || typeof t.from !== 'string' || typeof t.value !== 'string') {
      throw new SpecError(`${where}: conversations[${i}] is not {"from": "...", "value": "..."}; ${SHAREGPT_EXPECTED}`);
    }
  });
  const first = turns.findIndex((t) => HUMAN.has((t as { from: string }).from));
  const prompt = turns[first] as { value: string } | undefined;
  const reply = turns[first + 1] as { value: string } | undefined;
  if (first < 0 || !reply || prompt!.value.trim() === '') return null;
  return {
    messages: [{ role: 'user', content: prompt!.value }],
    words: countWords(prompt!.value),
    answerWords: Math.max(1, countWords(reply.value)),
    turns: humanTurns(turns as { from: string; value: string }[], first),
  };
}

/** Each non-empty human turn from `first` on with the length of the reply that follows it (a last turn without one gets its predecessor's). */
function humanTurns(turns: { from: string; value: string }[], first: number): NonNullable<DatasetEntry['turns']> {
  const out: NonNullable<DatasetEntry['turns']> = [];
  for (let i = first; i < turns.length; i++) {
    if (!HUMAN.has(turns[i].from) || turns[i].value.trim() === '') continue;
    const next = turns[i + 1];
    const answerWords = next && !HUMAN.has(next.from) ? Math.max(1, countWords(next.value)) : (out[out.length - 1]?.answerWords ?? 1);
    out.push({ text: turns[i].value, words: countWords(turns[i].value), answerWords });
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Entry indices in the order requests use them. without_replacement walks a fresh seeded
 * shuffle each pass, so every entry is used once before any is reused; with_replacement
 * draws independently (repeats come sooner, by the birthday bound).
 */
export function entryPicker(n: number, sample: DatasetSpec['sample'], rng: Rng): () => number {
  if (sample === 'with_replacement') return () => Math.floor(rng.next() * n);
  const order = Array.from({ length: n }, (_, i) => i);
  let next = n;
  return () => {
    if (next === n) {
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(rng.next() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      next = 0;
    }
    return order[next++];
  };
}
