import { createClient } from '../../src/client/client.js';
import { buildRequestBody } from '../../src/client/openai.js';
import { launchSim, type SimHandle } from '../../src/sim/launch.js';
import { now } from '../../src/time.js';
import { RecordingSpy } from '../client/recording-spy.js';
import { agent, chatBody, contentEvents, parsedEvents, post, request, sleep, streaming } from './helpers.js';

let sim: SimHandle;
beforeAll(async () => {
  sim = await launchSim({ mode: 'paced', ttft_ms: 5, itl_ms: 2, seed: 11 });
});
afterAll(async () => {
  await sim.stop();
  agent.destroy();
});

const stream = (fault: string, tokens = 10) =>
  post(sim.origin, '/v1/chat/completions', chatBody('fault please', { max_tokens: tokens, ignore_eos: true }), { 'x-sim-fault': fault });

async function truthOf(id: string) {
  const all = JSON.parse((await request(sim.origin, 'GET', '/sim/requests')).body);
  return all.find((r: { id: string }) => r.id === id);
}

test('error: an OpenAI-style 5xx before any stream', async () => {
  const r = await stream('error=502');
  expect(r.status).toBe(502);
  expect(JSON.parse(r.body).error.message).toBe('simulated server error');
  expect((await stream('error')).status).toBe(500);
});

test('shed: 429 with Retry-After', async () => {
  const r = await stream('shed');
  expect(r.status).toBe(429);
  expect(r.headers['retry-after']).toBe('1');
  expect(JSON.parse(r.body).error.type).toBe('rate_limit_exceeded');
});

test('max_queue sheds what would wait beyond it', async () => {
  const small = await launchSim({ mode: 'paced', ttft_ms: 50, itl_ms: 10, slots: 1, max_queue: 1, retry_after_s: 3 });
  try {
    const body = { prompt: 'a', max_tokens: 3, ignore_eos: true };
    const replies = await Promise.all([0, 1, 2].map(() => post(small.origin, '/v1/completions', body)));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    expect(replies.find((r) => r.status === 429)!.headers['retry-after']).toBe('3');
  } finally {
    await small.stop();
  }
});

test('stream_error: an error event mid-stream, after some tokens', async () => {
  const r = await stream('stream_error=0.5');
  expect(r.status).toBe(200);
  expect(contentEvents(r)).toHaveLength(5);
  const error = r.events.find((e) => e.data.startsWith('{"error"'));
  expect(JSON.parse(error!.data).error.code).toBe(500);
});

test('truncate: the stream ends cleanly but without [DONE]', async () => {
  const r = await stream('truncate=0.3', 10);
  expect(r.error).toBeUndefined();
  expect(contentEvents(r)).toHaveLength(3);
  expect(r.events.some((e) => e.data === '[DONE]')).toBe(false);
});

test('malformed: one chunk is not valid JSON, the rest of the stream is intact', async () => {
  const r = await stream('malformed=0.5');
  const broken = r.events.filter((e) => {
    if (e.data === '[DONE]') return false;
    try {
      JSON.parse(e.data);
      return false;
    } catch {
      return true;
    }
  });
  expect(broken).toHaveLength(1);
  expect(contentEvents(r)).toHaveLength(10);
  expect(r.events.at(-1)!.data).toBe('[DONE]');
});

test('reset: the connection is destroyed mid-stream', async () => {
  const r = await post(sim.origin, '/v1/chat/completions', chatBody('x', { max_tokens: 10, ignore_eos: true }), {
    'x-sim-fault': 'reset=0.5',
    'x-request-id': 'reset-1',
  });
  expect(r.error).toBeDefined();
  expect(contentEvents(r).length).toBeGreaterThanOrEqual(4);
  expect(contentEvents(r).length).toBeLessThan(10);
  expect(await truthOf('reset-1')).toMatchObject({ outcome: 'reset', fault: 'reset' });
});

test('header_delay: response headers come late', async () => {
  const r = await stream('header_delay=300', 2);
  expect(r.tHeaders - r.tSend).toBeGreaterThanOrEqual(300);
  expect(contentEvents(r)).toHaveLength(2);
});

// Stall checks read ground truth: a busy machine can hide a gap from the client (it reads the
// tokens on both sides of the stall in one go) but never makes a stalled token early.
test('stall via header: the whole engine pauses, delaying other streams too', async () => {
  const other = streaming(sim.origin, '/v1/chat/completions', chatBody('x', { max_tokens: 150, ignore_eos: true })); // ≈ 300 ms
  await other.started;
  const staller = parsedEvents(await stream('stall=200', 1)).at(-1).sim_timing;
  const t = parsedEvents(await other.reply).at(-1).sim_timing;
  expect(staller.first_token - staller.received).toBeGreaterThanOrEqual(200);
  // Unless the stall began after the other stream's ideal end, that stream lost all of it.
  expect(t.last_token - t.received).toBeGreaterThanOrEqual(Math.min(5 + 149 * 2, staller.received - t.received) + 200);
});

test('stall from config: periodic engine pauses show up as long gaps', async () => {
  const stalling = await launchSim({ mode: 'paced', ttft_ms: 5, itl_ms: 5, stall: { duration_ms: 120, every_ms: 300 } });
  try {
    const r = await post(stalling.origin, '/v1/chat/completions', chatBody('x', { max_tokens: 100, ignore_eos: true }));
    const t = parsedEvents(r).at(-1).sim_timing;
    expect(t.last_token - t.received).toBeGreaterThanOrEqual(5 + 99 * 5 + 120); // ≥ one stall inside 500 ms
    const gaps = contentEvents(r).map((e, i, all) => (i ? e.t - all[i - 1].t : 0));
    expect(Math.max(...gaps)).toBeGreaterThan(60);
  } finally {
    await stalling.stop();
  }
});

test('fault rates are drawn from the seed: the same seed gives the same faults', async () => {
  const statuses = async () => {
    const s = await launchSim({ mode: 'fast', seed: 5, error_rate: 0.3, truncate_rate: 0.2 });
    try {
      const out: string[] = [];
      for (let i = 0; i < 30; i++) {
        const r = await post(s.origin, '/v1/chat/completions', chatBody('x', { max_tokens: 4, ignore_eos: true }));
        out.push(r.status === 200 ? (r.events.some((e) => e.data === '[DONE]') ? 'ok' : 'truncated') : String(r.status));
      }
      return out;
    } finally {
      await s.stop();
    }
  };
  const a = await statuses();
  expect(await statuses()).toEqual(a);
  expect(a.filter((x) => x === 'ok').length).toBeGreaterThan(5);
  expect(a.filter((x) => x === 'truncated').length).toBeGreaterThan(1);
  expect(a.filter((x) => /^50[023]$/.test(x)).length).toBeGreaterThan(3);
});

test('hang: the stream stops mid-way and the response never ends', async () => {
  const body = JSON.stringify(chatBody('x', { max_tokens: 10, ignore_eos: true }));
  const { reply, started } = streaming(sim.origin, '/v1/chat/completions', body, { 'x-sim-fault': 'hang=0.5', 'x-request-id': 'hang-1' });
  void reply;
  await started;
  await sleep(300); // the other five tokens would have taken 10 ms
  const truth = await truthOf('hang-1');
  expect(truth).toMatchObject({ fault: 'hang', output_tokens: 5, outcome: null, ended: null });
});

test('slowloris: response headers, then nothing', async () => {
  const body = JSON.stringify(chatBody('x', { max_tokens: 10, ignore_eos: true }));
  const { reply } = streaming(sim.origin, '/v1/chat/completions', body, { 'x-sim-fault': 'slowloris', 'x-request-id': 'slow-1' });
  void reply;
  await sleep(300);
  expect(await truthOf('slow-1')).toMatchObject({ fault: 'slowloris', status: 200, output_tokens: 0, first_token: null, ended: null });
});

/**
 * The fault matrix as loadgate's client sees it: each fault the simulator can inject lands in
 * one class with a detail that names it. The budget is 400 ms, so hangs end as timeouts on time.
 */
describe('each fault lands in its class', () => {
  const cases: [fault: string, outcome: string, detail: RegExp | undefined][] = [
    ['', 'ok', undefined],
    ['error=502', 'http_5xx', /^HTTP 502: simulated server error$/],
    ['shed', 'http_429', /^HTTP 429: .* \(Retry-After: 1\)$/],
    ['stream_error=0.5', 'stream_error', /^error event: /],
    ['truncate=0.5', 'stream_error', /^stream ended without \[DONE\]$/],
    ['malformed=0.5', 'stream_error', /^malformed chunk$/],
    ['reset=0.5', 'stream_error', /^connection lost mid-stream: /],
    ['hang=0.5', 'timeout', /^stream not finished within 400 ms$/],
    ['slowloris', 'timeout', /^stream not finished within 400 ms$/],
    ['header_delay=2000', 'timeout', /^no response within 400 ms$/],
    ['stall=150', 'ok', undefined],
  ];
  test.each(cases)('x-sim-fault: %s → %s', async (fault, outcome, detail) => {
    // The fault goes in a header, and a client's headers are fixed when it is made: one client per case.
    const headers: Record<string, string> = fault ? { 'x-sim-fault': fault } : {};
    const client = createClient({ baseUrl: `${sim.origin}/v1`, api: 'chat', timeoutMs: 400, headers });
    try {
      const rec = new RecordingSpy();
      const tSend = now();
      client.send(buildRequestBody({ api: 'chat', model: 'sim-8b', prompt: 'x', maxTokens: 10, ignoreEos: true }), rec, 'matrix');
      const end = await rec.ended;
      expect(end.outcome).toBe(outcome);
      if (detail) expect(end.detail).toMatch(detail);
      else expect(end.detail).toBeUndefined();
      if (outcome === 'timeout') {
        expect(end.t - tSend).toBeGreaterThanOrEqual(399);
        expect(end.t - tSend).toBeLessThan(1_000);
      }
      if (fault.startsWith('stall')) expect(end.t - tSend).toBeGreaterThanOrEqual(150);
    } finally {
      await client.close();
    }
  });
});

test('an unknown fault name is a 400', async () => {
  const r = await stream('meteor');
  expect(r.status).toBe(400);
  expect(JSON.parse(r.body).error.message).toMatch(/unknown fault "meteor"/);
});
