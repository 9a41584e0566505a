/** The OpenAI-compatible wire format: the streaming request body and what each streamed event means. */

export type Api = 'chat' | 'completions';
export type ContentKind = 'reasoning' | 'answer';

export interface RequestBodyOptions {
  api: Api;
  model: string;
  prompt: string;
  maxTokens: number;
  /** vLLM/SGLang extension that keeps generating past EOS, so the output length is the one asked for. */
  ignoreEos: boolean;
  /** vLLM extension: a floor on the output length for servers without ignore_eos. */
  minTokens?: number;
}

export function buildRequestBody(o: RequestBodyOptions): string {
  const body: Record<string, unknown> = { model: o.model };
  if (o.api === 'chat') body.messages = [{ role: 'user', content: o.prompt }];
  else body.prompt = o.prompt;
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

/**
 * Classifies one event's data. The interpretation does not depend on the API: a choice with a
 * `delta` is a chat chunk, otherwise its `text` is read as a completions chunk.
 *
 * JSON.parse on every event is deliberate: a substring pre-check could not tell a truncated or
 * malformed chunk from a good one, and it would save little. Measured on Node 20: ~0.8 µs to
 * read a typical 220-byte vLLM chunk, against ~10 µs of main-thread time per socket read in
 * Node and undici before the event reaches us.
 */
export function readEvent(data: string, into: StreamEvent): StreamEvent {
  into.done = false;
  into.content = null;
  into.usage = false;
  into.error = null;
  if (data === '[DONE]') {
    into.done = true;
    return into;
  }
  if (data.length === 0) return into; // an empty `data:` line carries nothing
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
  if (usage != null && typeof usage.completion_tokens === 'number') {
    into.usage = true;
    into.completionTokens = usage.completion_tokens;
    into.promptTokens = typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0;
  }
  return into;
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
