import type { SimConfig } from './config.js';
import { chatText, countTokens } from './tokenize.js';

export type Api = 'chat' | 'completions';

/** An OpenAI request body reduced to what the simulator acts on. */
export interface ParsedRequest {
  api: Api;
  stream: boolean;
  includeUsage: boolean;
  /** Prompt text, or token ids when a completions prompt is given as ids. */
  prompt: string | number[];
  promptTokens: number;
  /** `max_tokens` (chat: `max_completion_tokens` first), else what the context window leaves. */
  maxTokens: number;
  minTokens: number;
  ignoreEos: boolean;
}

/** An OpenAI-style error response. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }

  body(): string {
    return JSON.stringify({ error: { message: this.message, type: this.type, param: this.param, code: this.code } });
  }
}

export function parseRequest(api: Api, body: unknown, config: SimConfig): ParsedRequest {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'the request body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (b.model !== undefined && b.model !== config.model) {
    throw new ApiError(
      404,
      `The model \`${typeof b.model === 'string' ? b.model : JSON.stringify(b.model)}\` does not exist.`,
      'invalid_request_error',
      'model',
      'model_not_found',
    );
  }
  const prompt = api === 'chat' ? chatPrompt(b.messages) : completionPrompt(b.prompt);
  const promptTokens = typeof prompt === 'string' ? countTokens(prompt) : prompt.length;
  if (promptTokens === 0) throw new ApiError(400, 'the prompt is empty', 'invalid_request_error', api === 'chat' ? 'messages' : 'prompt');

  const requested = optionalInt(api === 'chat' ? (b.max_completion_tokens ?? b.max_tokens) : b.max_tokens, 'max_tokens', 1);
  const room = config.max_model_len - promptTokens;
  if (room < 1 || (requested !== undefined && requested > room)) {
    throw new ApiError(
      400,
      `This model's maximum context length is ${config.max_model_len} tokens. However, you requested ` +
        `${promptTokens + (requested ?? 1)} tokens (${promptTokens} in the prompt, ${requested ?? 1} in the completion). ` +
        'Please reduce the length of the prompt or completion.',
    );
  }
  const maxTokens = requested ?? room;
  const minTokens = optionalInt(b.min_tokens, 'min_tokens', 0) ?? 0;
  if (minTokens > maxTokens)
    throw new ApiError(400, `min_tokens (${minTokens}) must be <= max_tokens (${maxTokens})`, 'invalid_request_error', 'min_tokens');
  const options = b.stream_options as { include_usage?: unknown } | undefined;
  return {
    api,
    stream: b.stream === true,
    includeUsage: b.stream === true ? options?.include_usage === true : true,
    prompt,
    promptTokens,
    maxTokens,
    minTokens,
    ignoreEos: b.ignore_eos === true,
  };
}

function chatPrompt(messages: unknown): string {
  const text = Array.isArray(messages) && messages.length > 0 ? chatText(messages) : undefined;
  if (text === undefined) throw new ApiError(400, 'messages must be a non-empty array', 'invalid_request_error', 'messages');
  return text;
}

function completionPrompt(prompt: unknown): string | number[] {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] === 'string') return prompt[0];
  if (Array.isArray(prompt) && prompt.length > 0 && prompt.every((t) => Number.isInteger(t))) return prompt as number[];
  throw new ApiError(400, 'prompt must be a string, a list of one string, or a list of token ids', 'invalid_request_error', 'prompt');
}

function optionalInt(value: unknown, name: string, min: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < min)
    throw new ApiError(400, `${name} must be an integer >= ${min}`, 'invalid_request_error', name);
  return value as number;
}
