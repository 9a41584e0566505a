import type { Api } from './request.js';

export const DONE = 'data: [DONE]\n\n';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

const CHAT_TOKEN = '{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":';
const TEXT_TOKEN = '{"index":0,"text":" tok","logprobs":null,"finish_reason":';
const CHAT_ROLE = '{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n';

/**
 * The chunks of one response, shaped like vLLM's. Everything but the usage chunk is fixed
 * once the request id is known, so it is encoded once per request and each due token is
 * one `res.write` of the same Buffer.
 */
export class ChunkEncoder {
  /** `data: {…,"choices":[` — the prefix every chunk of this response shares. */
  private readonly head: string;
  readonly tokenText: string;
  readonly token: Buffer;
  /** Chat's first chunk: the assistant role with empty content, carrying no output. */
  readonly role: string;

  constructor(
    private readonly api: Api,
    private readonly id: string,
    private readonly model: string,
    private readonly created: number,
  ) {
    const object = api === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    this.head = `data: {"id":${JSON.stringify(id)},"object":"${object}","created":${created},"model":${JSON.stringify(model)},"choices":[`;
    this.tokenText = this.head + (api === 'chat' ? CHAT_TOKEN : TEXT_TOKEN) + 'null}]}\n\n';
    this.token = Buffer.from(this.tokenText);
    this.role = api === 'chat' ? this.head + CHAT_ROLE : '';
  }

  /** The last content chunk carries the finish reason, as vLLM's does. */
  last(reason: 'length' | 'stop'): string {
    return this.head + (this.api === 'chat' ? CHAT_TOKEN : TEXT_TOKEN) + `"${reason}"}]}\n\n`;
  }

  /** The usage chunk (`choices: []`), sent when `stream_options.include_usage` is set. */
  usage(usage: Usage, simTiming: object): string {
    return `${this.head}],"usage":${JSON.stringify(usage)},"sim_timing":${JSON.stringify(simTiming)}}\n\n`;
  }

  /** An in-band error event as vLLM sends one when generation fails mid-stream. */
  error(): string {
    return `data: {"error":{"message":"simulated engine failure mid-stream","type":"InternalServerError","param":null,"code":500}}\n\n`;
  }

  /** A chunk whose JSON breaks off: what a buggy proxy or a split write can produce. */
  malformed(): string {
    return this.tokenText.slice(0, this.tokenText.length >> 1) + '\n\n';
  }

  /** A whole non-streaming response. */
  json(outputTokens: number, reason: 'length' | 'stop', usage: Usage, simTiming: object): string {
    const text = ' tok'.repeat(outputTokens);
    const choice =
      this.api === 'chat'
        ? { index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: reason }
        : { index: 0, text, logprobs: null, finish_reason: reason };
    return JSON.stringify({
      id: this.id,
      object: this.api === 'chat' ? 'chat.completion' : 'text_completion',
      created: this.created,
      model: this.model,
      choices: [choice],
      usage,
      sim_timing: simTiming,
    });
  }
}
