/** The OpenAI-compatible wire format: the streaming request body and what each streamed event means. */
import { tokenCountProblem } from './bounds.js';
import { MALFORMED, newChunkFindings, scanChunk, UNUSUAL } from './chunk-scan.js';

export type Api = 'chat' | 'completions';
export type ContentKind = 'reasoning' | 'answer';

/** One chat message, as the chat API takes it. */
export interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What a completions request sends for these messages: their contents, one per line (the simulator joins chat messages the same way). */
export function promptText(messages: readonly Message[]): string {
  return messages.map((m) => m.content).join('\n');
}

/** A request's input: one prompt (sent as a single user message to the chat API) or chat messages. */
export type RequestInput = { prompt: string } | { messages: readonly Message[] };

export type RequestBodyOptions = RequestInput & {
  api: Api;
  model: string;
  maxTokens: number;
  /** vLLM/SGLang extension that keeps generating past EOS, so the output length is the one asked for. */
  ignoreEos: boolean;
  /** vLLM extension: a floor on the output length for servers without ignore_eos. */
  minTokens?: number;
};

/**
 * The streaming request body. The completions API takes one prompt, so messages are joined
 * with promptText; the chat API takes the messages as they are.
 */
export function buildRequestBody(o: RequestBodyOptions): string {
  const body: Record<string, unknown> = { model: o.model };
  if (o.api === 'chat') body.messages = 'messages' in o ? o.messages : [{ role: 'user', content: o.prompt }];
  else body.prompt = 'messages' in o ? promptText(o.messages) : o.prompt;
  body.max_tokens = o.maxTokens;
  if (o.ignoreEos) body.ignore_eos = true;
  if (o.minTokens !== undefined) body.min_tokens = o.minTokens;
  body.stream = true;
  // Without this the server never reports token counts and we would have to count chunks.
  body.stream_options = { include_usage: true };
  return JSON.stringify(body);
}

/** What one streamed event carried. One instance is reused for every event; `readEvent` resets it. */
export interface StreamEvent {
  /** The `[DONE]` sentinel. */
  done: boolean;
  /** Set when the event carried output text; role-only and empty deltas carry none. */
  content: ContentKind | null;
  /** Set when the event carried a `usage` object. */
  usage: boolean;
  promptTokens: number;
  completionTokens: number;
  /** Set when the event is an error object or not a JSON object; a short message. */
  error: string | null;
}

export function newStreamEvent(): StreamEvent {
  return { done: false, content: null, usage: false, promptTokens: 0, completionTokens: 0, error: null };
}

/** The fields we read from a chunk; everything is optional because servers differ. */
interface Chunk {
  object?: unknown;
  error?: unknown;
  choices?: unknown;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null;
}
interface Choice {
  text?: unknown;
  delta?: { content?: unknown; reasoning_content?: unknown; reasoning?: unknown } | null;
}

const DONE = Buffer.from('[DONE]');
const findings = newChunkFindings();

/**
 * Classifies one event's data, bytes[start, end). The interpretation does not depend on the
 * API: a choice with a `delta` is a chat chunk, otherwise its `text` is read as a completions
 * chunk. The usual chunk is read by `scanChunk` without allocating; anything it leaves to
 * JSON.parse (an error payload, say) goes through `parseEvent`, which defines the meaning.
 */
export function readEvent(bytes: Uint8Array, start: number, end: number, into: StreamEvent): StreamEvent {
  reset(into);
  if (end === start) return into; // an empty `data:` line carries nothing
  if (end - start === DONE.length && Buffer.compare(DONE, bytes.subarray(start, end)) === 0) {
    into.done = true;
    return into;
  }
  const status = scanChunk(bytes, start, end, findings);
  if (status === MALFORMED) {
    into.error = 'malformed chunk';
    return into;
  }
  if (status === UNUSUAL) return parseEvent(Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8'), into);
  const f = findings;
  if (f.hasDelta ? f.answer : f.text) into.content = 'answer';
  else if (f.hasDelta && f.reasoning) into.content = 'reasoning';
  if (f.completionTokens !== null) setUsage(into, f.promptTokens ?? 0, f.completionTokens);
  return into;
}

/**
 * Token counts come from the server, and the histograms that record them cannot hold any
 * number: one out of range (1e16, negative, fractional) makes the chunk malformed, so the
 * request is a stream_error that says so and the run goes on.
 */
function setUsage(into: StreamEvent, promptTokens: number, completionTokens: number): void {
  const problem = tokenCountProblem(completionTokens);
  const promptProblem = tokenCountProblem(promptTokens);
  if (problem !== null || promptProblem !== null) {
    into.error = `malformed chunk: usage.${problem !== null ? `completion_tokens ${problem}` : `prompt_tokens ${promptProblem}`}`;
    return;
  }
  into.usage = true;
  into.completionTokens = completionTokens;
  into.promptTokens = promptTokens;
}

function reset(into: StreamEvent): void {
  into.done = false;
  into.content = null;
  into.usage = false;
  into.error = null;
}

/** `readEvent` on text, with JSON.parse: the reference meaning of an event. */
export function parseEvent(data: string, into: StreamEvent): StreamEvent {
  reset(into);
  if (data === '[DONE]') {
    into.done = true;
    return into;
  }
  if (data.length === 0) return into;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    into.error = 'malformed chunk';
    return into;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    into.error = 'malformed chunk';
    return into;
  }
  const chunk = parsed as Chunk;
  if (chunk.error != null || chunk.object === 'error') {
    into.error = 'error event: ' + (errorMessage(chunk) ?? 'no message');
    return into;
  }
  const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as Choice | undefined) : undefined;
  if (choice != null) {
    const delta = choice.delta;
    if (delta != null) {
      if (nonEmpty(delta.content)) into.content = 'answer';
      else if (nonEmpty(delta.reasoning_content) || nonEmpty(delta.reasoning)) into.content = 'reasoning';
    } else if (nonEmpty(choice.text)) {
      into.content = 'answer';
    }
  }
  const usage = chunk.usage;
  if (usage != null && typeof usage.completion_tokens === 'number')
    setUsage(into, typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0, usage.completion_tokens);
  return into;
}

/** The answer text an event carries (chat `delta.content`, completions `text`); '' when none. Decoded only for captured replies. */
export function answerText(data: string): string {
  try {
    const choice = (JSON.parse(data) as Chunk).choices;
    const c = Array.isArray(choice) ? (choice[0] as Choice | undefined) : undefined;
    const text = c?.delta != null ? c.delta.content : c?.text;
    return typeof text === 'string' ? text : '';
  } catch {
    return '';
  }
}

/**
 * The human message of an error payload in the shapes servers use: OpenAI `{error: {message}}`,
 * `{error: "..."}`, vLLM `{object: "error", message}`, FastAPI `{detail}`.
 */
export function errorMessage(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const p = payload as { error?: unknown; message?: unknown; detail?: unknown };
  if (typeof p.error === 'string') return p.error;
  if (typeof p.error === 'object' && p.error !== null) {
    const m = (p.error as { message?: unknown }).message;
    if (typeof m === 'string') return m;
  }
  if (typeof p.message === 'string') return p.message;
  if (typeof p.detail === 'string') return p.detail;
  if (p.detail !== undefined) return JSON.stringify(p.detail);
  return undefined;
}

function nonEmpty(v: unknown): boolean {
  return typeof v === 'string' && v.length > 0;
}
