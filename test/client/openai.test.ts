import { buildRequestBody, errorMessage, newStreamEvent, readEvent } from '../../src/client/openai.js';

/** The data bytes sit inside a larger buffer, as they do in the SSE framer's. */
const inBuffer = (text: string): [Buffer, number, number] => {
  const b = Buffer.from(`data: ${text}\n\n`);
  return [b, 6, b.length - 2];
};
const read = (data: unknown) => ({ ...readEvent(...inBuffer(typeof data === 'string' ? data : JSON.stringify(data)), newStreamEvent()) });
const nothing = { done: false, content: null, usage: false, error: null };

describe('buildRequestBody', () => {
  test('chat: messages, streaming with usage, max_tokens, ignore_eos', () => {
    const body = JSON.parse(buildRequestBody({ api: 'chat', model: 'm', prompt: 'hi', maxTokens: 64, ignoreEos: true }));
    expect(body).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 64,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test('completions: prompt; ignore_eos omitted when false; min_tokens when given', () => {
    const body = JSON.parse(
      buildRequestBody({ api: 'completions', model: 'm', prompt: 'hi', maxTokens: 8, ignoreEos: false, minTokens: 8 }),
    );
    expect(body).toEqual({ model: 'm', prompt: 'hi', max_tokens: 8, min_tokens: 8, stream: true, stream_options: { include_usage: true } });
  });

  test('messages: the chat API takes them as they are, completions joins their contents one per line', () => {
    const messages = [
      { role: 'system' as const, content: 'be brief' },
      { role: 'user' as const, content: 'hi' },
    ];
    const chat = buildRequestBody({ api: 'chat', model: 'm', messages, maxTokens: 4, ignoreEos: false });
    expect(chat).toBe(
      '{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}],"max_tokens":4,"stream":true,"stream_options":{"include_usage":true}}',
    );
    const completions = JSON.parse(buildRequestBody({ api: 'completions', model: 'm', messages, maxTokens: 4, ignoreEos: false }));
    expect(completions.prompt).toBe('be brief\nhi');
  });
});

describe('readEvent', () => {
  test('[DONE]', () => {
    expect(read('[DONE]')).toMatchObject({ ...nothing, done: true });
  });

  test('a role-only chat chunk and an empty-content chunk are not content', () => {
    expect(read({ choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] })).toMatchObject(nothing);
    expect(read({ choices: [{ index: 0, delta: { role: 'assistant' } }] })).toMatchObject(nothing);
    expect(read({ choices: [{ index: 0, delta: { content: null }, finish_reason: 'stop' }] })).toMatchObject(nothing);
    expect(read({ choices: [{ index: 0, text: '' }] })).toMatchObject(nothing);
  });

  test('chat content is answer; reasoning_content and reasoning are reasoning', () => {
    expect(read({ choices: [{ delta: { content: 'x' } }] }).content).toBe('answer');
    expect(read({ choices: [{ delta: { reasoning_content: 'x', content: null } }] }).content).toBe('reasoning');
    expect(read({ choices: [{ delta: { reasoning: 'x' } }] }).content).toBe('reasoning');
  });

  test('completions text is answer', () => {
    expect(read({ object: 'text_completion', choices: [{ text: ' x' }] }).content).toBe('answer');
  });

  test('usage in the final chunk with empty choices; usage: null is ignored', () => {
    expect(read({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 } })).toMatchObject({
      ...nothing,
      usage: true,
      promptTokens: 12,
      completionTokens: 34,
    });
    expect(read({ choices: [{ delta: { content: 'x' } }], usage: null })).toMatchObject({ content: 'answer', usage: false });
  });

  test('content and usage in one chunk are both reported', () => {
    expect(read({ choices: [{ text: 'x' }], usage: { prompt_tokens: 1, completion_tokens: 2 } })).toMatchObject({
      content: 'answer',
      usage: true,
    });
  });

  test('in-stream error objects', () => {
    expect(read({ error: { message: 'out of memory', code: 500 } }).error).toBe('error event: out of memory');
    expect(read({ object: 'error', message: 'bad', type: 'BadRequestError', code: 400 }).error).toBe('error event: bad');
  });

  test('malformed chunks', () => {
    expect(read('{"choices":[{"delta":{"content":"x"}}]').error).toBe('malformed chunk');
    expect(read('not json').error).toBe('malformed chunk');
    expect(read('42').error).toBe('malformed chunk');
    expect(read('[1]').error).toBe('malformed chunk');
    expect(read('null').error).toBe('malformed chunk');
  });

  test('an empty data payload carries nothing', () => {
    expect(read('')).toMatchObject(nothing);
  });

  test('the scratch object is fully reset between events', () => {
    const ev = newStreamEvent();
    readEvent(...inBuffer('[DONE]'), ev);
    readEvent(...inBuffer('oops'), ev);
    expect(ev).toMatchObject({ done: false, error: 'malformed chunk' });
    readEvent(...inBuffer('{"choices":[{"text":"a"}]}'), ev);
    expect(ev).toMatchObject({ done: false, error: null, content: 'answer', usage: false });
  });
});

describe('errorMessage', () => {
  test.each([
    [{ error: { message: 'm1' } }, 'm1'],
    [{ error: 'm2' }, 'm2'],
    [{ object: 'error', message: 'm3' }, 'm3'],
    [{ detail: 'Not Found' }, 'Not Found'],
    [{ detail: [{ msg: 'field required' }] }, '[{"msg":"field required"}]'],
    [{ other: 1 }, undefined],
    ['text', undefined],
  ])('%j → %j', (payload, msg) => {
    expect(errorMessage(payload)).toBe(msg);
  });
});
