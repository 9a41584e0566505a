import http from 'node:http';
import { launchSim, type SimHandle } from '../../src/sim/launch.js';
import { agent, chatBody, contentEvents, metric, parsedEvents, post, request, sleep, words } from './helpers.js';

let sim: SimHandle;
beforeAll(async () => {
  sim = await launchSim({
    mode: 'engine',
    decode_base_ms: 1,
    decode_ms_per_seq: 0.1,
    prefill_ms_per_token: 0.001,
    seed: 3,
    output_tokens: { dist: 'uniform', min: 3, max: 9 },
  });
});
afterAll(async () => {
  await sim.stop();
  agent.destroy();
});

test('launchSim returns an OpenAI base URL', () => {
  expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  expect(sim.origin).toBe(sim.baseUrl.slice(0, -3));
});

test('streaming chat: role-only first chunk, one chunk per token, usage with sim_timing, [DONE]', async () => {
  const r = await post(sim.origin, '/v1/chat/completions', chatBody(words(7), { max_tokens: 5, ignore_eos: true }), {
    'x-request-id': 'chat-1',
  });
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
  expect(r.headers['x-request-id']).toBe('chat-1');
  const events = parsedEvents(r);
  expect(events[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
  expect(events[0].object).toBe('chat.completion.chunk');
  const content = contentEvents(r);
  expect(content).toHaveLength(5);
  expect(content.map((e) => JSON.parse(e.data).choices[0].delta.content).join('')).toBe(' tok tok tok tok tok');
  expect(JSON.parse(content[4].data).choices[0].finish_reason).toBe('length');
  const usage = events[events.length - 1];
  expect(usage.choices).toEqual([]);
  expect(usage.usage).toEqual({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12, prompt_tokens_details: { cached_tokens: 0 } });
  const t = usage.sim_timing;
  expect(t).toEqual({
    request_id: 'chat-1',
    received: expect.any(Number),
    admitted: expect.any(Number),
    first_token: expect.any(Number),
    last_token: expect.any(Number),
    prompt_tokens: 7,
    cached_tokens: 0,
    output_tokens: 5,
  });
  expect(t.received).toBeLessThanOrEqual(t.admitted);
  expect(t.admitted).toBeLessThan(t.first_token);
  expect(t.first_token).toBeLessThan(t.last_token);
  expect(r.tSend).toBeLessThan(t.received);
  expect(content[0].t).toBeGreaterThan(t.first_token);
  expect(r.events[r.events.length - 1].data).toBe('[DONE]');
});

test('streaming completions: no role chunk, text chunks, no usage unless asked for', async () => {
  const r = await post(sim.origin, '/v1/completions', { model: 'sim-8b', prompt: words(4), max_tokens: 3, ignore_eos: true, stream: true });
  const events = parsedEvents(r);
  expect(events).toHaveLength(3);
  expect(events.every((e) => e.object === 'text_completion' && e.choices[0].text === ' tok')).toBe(true);
  expect(events.some((e) => e.usage)).toBe(false);
  expect(r.events[r.events.length - 1].data).toBe('[DONE]');
});

test('non-streaming chat and completions carry usage and sim_timing', async () => {
  const chat = JSON.parse(
    (
      await post(sim.origin, '/v1/chat/completions', {
        messages: [{ role: 'user', content: 'a b c' }],
        max_completion_tokens: 4,
        ignore_eos: true,
      })
    ).body,
  );
  expect(chat.object).toBe('chat.completion');
  expect(chat.choices[0].message).toEqual({ role: 'assistant', content: ' tok tok tok tok' });
  expect(chat.choices[0].finish_reason).toBe('length');
  expect(chat.usage.completion_tokens).toBe(4);
  expect(chat.sim_timing.output_tokens).toBe(4);
  const text = JSON.parse((await post(sim.origin, '/v1/completions', { prompt: [1, 2, 3], max_tokens: 2, ignore_eos: true })).body);
  expect(text.object).toBe('text_completion');
  expect(text.choices[0].text).toBe(' tok tok');
  expect(text.usage.prompt_tokens).toBe(3);
});

test('without ignore_eos the length is seeded, within [min_tokens, max_tokens]', async () => {
  const lengths: number[] = [];
  for (let i = 0; i < 12; i++) {
    const r = JSON.parse((await post(sim.origin, '/v1/completions', { prompt: 'x', max_tokens: 8, min_tokens: 4 })).body);
    lengths.push(r.usage.completion_tokens);
    expect(r.choices[0].finish_reason).toBe(r.usage.completion_tokens === 8 ? 'length' : 'stop');
  }
  expect(Math.min(...lengths)).toBeGreaterThanOrEqual(4);
  expect(Math.max(...lengths)).toBeLessThanOrEqual(8);
  expect(new Set(lengths).size).toBeGreaterThan(1);
});

test('/tokenize counts exactly what usage.prompt_tokens reports', async () => {
  const prompt = 'Hello,  world!\nThis is\tsix words';
  const tok = JSON.parse((await post(sim.origin, '/tokenize', { model: 'sim-8b', prompt })).body);
  expect(tok).toEqual({ count: 6, tokens: expect.any(Array), max_model_len: 8192, token_strs: null });
  expect(tok.tokens).toHaveLength(6);
  const messages = [
    { role: 'system', content: 'two words' },
    { role: 'user', content: prompt },
  ];
  expect(JSON.parse((await post(sim.origin, '/tokenize', { messages })).body).count).toBe(8);
  const chat = JSON.parse((await post(sim.origin, '/v1/chat/completions', { messages, max_tokens: 1 })).body);
  expect(chat.usage.prompt_tokens).toBe(8);
});

test('/v1/models lists the configured model', async () => {
  const r = JSON.parse((await request(sim.origin, 'GET', '/v1/models')).body);
  expect(r.object).toBe('list');
  expect(r.data[0]).toMatchObject({ id: 'sim-8b', object: 'model', max_model_len: 8192 });
});

test('errors are OpenAI-shaped: unknown model 404, bad JSON 400, over-long request 400', async () => {
  const unknown = await post(sim.origin, '/v1/chat/completions', { ...chatBody('hi'), model: 'gpt-9' });
  expect(unknown.status).toBe(404);
  expect(JSON.parse(unknown.body).error).toMatchObject({ message: 'The model `gpt-9` does not exist.', code: 'model_not_found' });
  const bad = await post(sim.origin, '/v1/completions', '{"prompt": ');
  expect(bad.status).toBe(400);
  expect(JSON.parse(bad.body).error.message).toMatch(/not valid JSON/);
  const long = await post(sim.origin, '/v1/completions', { prompt: 'a b', max_tokens: 8191 });
  expect(long.status).toBe(400);
  expect(JSON.parse(long.body).error.message).toMatch(/maximum context length is 8192 tokens/);
});

test('/metrics is Prometheus text with engine gauges and counters by class', async () => {
  const before = await metric(sim.origin, 'loadgate_sim_requests_total{model_name="sim-8b",class="ok"}');
  await post(sim.origin, '/v1/completions', { prompt: 'a', max_tokens: 2 });
  const text = (await request(sim.origin, 'GET', '/metrics')).body;
  for (const series of [
    'vllm:num_requests_running',
    'vllm:num_requests_waiting',
    'vllm:kv_cache_usage_perc',
    'vllm:generation_tokens_total',
    'process_cpu_seconds_total',
  ]) {
    expect(text).toMatch(new RegExp(`^${series}(\\{[^}]*\\})? [0-9.e+-]+$`, 'm'));
  }
  expect(text).toMatch(/^loadgate_sim_requests_total\{model_name="sim-8b",class="http_4xx"\} [1-9]/m);
  expect(await metric(sim.origin, 'loadgate_sim_requests_total{model_name="sim-8b",class="ok"}')).toBe(before + 1);
});

test('/sim/requests keeps ground truth keyed by x-request-id; DELETE clears it', async () => {
  await post(sim.origin, '/v1/completions', { prompt: 'a b c', max_tokens: 2, ignore_eos: true }, { 'x-request-id': 'gt-1' });
  const list = JSON.parse((await request(sim.origin, 'GET', '/sim/requests')).body);
  const rec = list.find((r: { id: string }) => r.id === 'gt-1');
  expect(rec).toMatchObject({
    api: 'completions',
    stream: false,
    prompt_tokens: 3,
    output_tokens: 2,
    status: 200,
    outcome: 'ok',
    fault: null,
  });
  expect(rec.ended).toBeGreaterThanOrEqual(rec.last_token);
  expect(rec.token_times).toBeUndefined(); // kept only with record_token_times
  expect((await request(sim.origin, 'DELETE', '/sim/requests')).status).toBe(204);
  expect(JSON.parse((await request(sim.origin, 'GET', '/sim/requests')).body)).toEqual([]);
});

test("record_token_times: every token's write time, in order, each before the client saw its chunk", async () => {
  const paced = await launchSim({ mode: 'paced', ttft_ms: 5, itl_ms: 4, record_token_times: true });
  try {
    const r = await post(
      paced.origin,
      '/v1/completions',
      { prompt: 'a b', max_tokens: 6, ignore_eos: true, stream: true },
      { 'x-request-id': 'tt-1' },
    );
    const rec = JSON.parse((await request(paced.origin, 'GET', '/sim/requests')).body).find((x: { id: string }) => x.id === 'tt-1');
    const times: number[] = rec.token_times;
    expect(times).toHaveLength(6);
    expect(times[0]).toBe(rec.first_token);
    expect(times[5]).toBe(rec.last_token);
    // Paced: token i is due ttft_ms + i·itl_ms after admission and never written before it.
    times.forEach((t, i) => expect(t).toBeGreaterThanOrEqual(rec.admitted + 5 + 4 * i - 0.01));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // Each token's chunk reached the client after the sim wrote it (one clock for both: same machine).
    const tokens = contentEvents(r);
    expect(tokens).toHaveLength(6);
    tokens.forEach((e, i) => expect(e.t).toBeGreaterThanOrEqual(times[i]));
  } finally {
    await paced.stop();
  }
});

test('a client that goes away frees its slot and KV blocks, as vLLM aborts it', async () => {
  const body = JSON.stringify({ prompt: words(64), max_tokens: 500, ignore_eos: true, stream: true });
  await new Promise<void>((resolve, reject) => {
    const req = http.request(`${sim.origin}/v1/completions`, { method: 'POST', headers: { 'x-request-id': 'gone-1' } }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
    req.end(body);
  });
  await sleep(50);
  expect(await metric(sim.origin, 'vllm:num_requests_running')).toBe(0);
  expect(await metric(sim.origin, 'vllm:kv_cache_usage_perc')).toBe(0);
  const rec = JSON.parse((await request(sim.origin, 'GET', '/sim/requests')).body).find((r: { id: string }) => r.id === 'gone-1');
  expect(rec.outcome).toBe('client_abort');
  expect(rec.output_tokens).toBeLessThan(500);
});

test('/health is 503 until startup_delay_ms has passed', async () => {
  const slow = await launchSim({ startup_delay_ms: 600 });
  try {
    expect((await request(slow.origin, 'GET', '/health')).status).toBe(503);
    expect((await post(slow.origin, '/v1/completions', { prompt: 'a', max_tokens: 1 })).status).toBe(503);
    await sleep(700);
    expect((await request(slow.origin, 'GET', '/health')).status).toBe(200);
    expect((await post(slow.origin, '/v1/completions', { prompt: 'a', max_tokens: 1 })).status).toBe(200);
  } finally {
    await slow.stop();
  }
});
