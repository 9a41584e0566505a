import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBenchmark } from '../../src/run/run.js';
import { parseSpec } from '../../src/spec/load.js';
import { startConversationServer, type ConversationServer, type ReceivedRequest } from '../fixtures/conversation-server.js';

let server: ConversationServer;
afterEach(() => server?.close());

/** Sessions start at 3/s for 1 s; the cooldown lets the last ones finish their four turns. */
function sessionSpec(baseUrl: string, workload: string) {
  const text = `name: sessions
target: { url: ${baseUrl}, model: test-model, request_timeout: 5s, ready_timeout: 5s }
workload:
  seed: 3
  calibrate: off
  input_tokens: 12
  output_tokens: 6
  sessions: { turns: 4, think_time: 300ms }
${workload}
load: { rate: 3, arrival: constant, warmup: 0s, steady: 1s, cooldown: 2s }
`;
  return parseSpec(text, 'sessions.yml', {});
}

/** The server's requests grouped into conversations by their first user message, each in arrival order. */
function conversations(received: ReceivedRequest[]): ReceivedRequest[][] {
  const byFirst = new Map<string, ReceivedRequest[]>();
  for (const r of received) {
    const first = r.messages.find((m) => m.role === 'user')!.content;
    byFirst.set(first, [...(byFirst.get(first) ?? []), r]);
  }
  return [...byFirst.values()];
}

async function run(workload = '', failAt?: number) {
  server = await startConversationServer({ tokens: 6, ttftMs: 20, itlMs: 5, failAt });
  const result = await runBenchmark({ resolved: sessionSpec(server.baseUrl, workload) });
  return { result, convs: conversations(await server.received()) };
}

/** Each turn resends the conversation with the server's own earlier replies, and waits its think time after the previous turn ended. */
function expectConversation(c: ReceivedRequest[], system: number) {
  expect(c.map((r) => r.messages.length)).toEqual([1, 3, 5, 7].map((n) => n + system));
  for (let k = 1; k < c.length; k++) {
    const [prev, cur] = [c[k - 1], c[k]];
    // The earlier messages exactly as sent, then the server's own reply as it streamed it.
    expect(cur.messages.slice(0, prev.messages.length)).toEqual(prev.messages);
    expect(cur.messages[prev.messages.length]).toEqual({ role: 'assistant', content: prev.reply });
    expect(cur.messages[cur.messages.length - 1].role).toBe('user');
    expect(cur.arrivedAt - prev.endedAt).toBeGreaterThanOrEqual(300);
  }
}

test('four-turn sessions carry 1, 3, 5, 7 messages with the server’s own replies, each turn 300 ms after the last ended', async () => {
  const { result, convs } = await run();
  // 3 sessions/s over the 3 s run: those started in the first second have time for all four turns.
  const complete = convs.filter((c) => c.length === 4);
  expect(complete.length).toBeGreaterThanOrEqual(3);
  for (const c of complete) expectConversation(c, 0);
  for (const c of convs) expect(c.length).toBeLessThanOrEqual(4);
  const s = result.workload.plan!.sessions!;
  expect(s.rate_unit).toBe('sessions/s');
  expect(s.completed).toBe(complete.length);
  expect(s.completed + s.cut_by_run_end + s.ended_by_failure).toBe(s.started);
  expect(s.by_turn.map((t) => t.turn)).toEqual([0, 1, 2, 3]);
  // The server counts one token per word: each turn's prompt is the previous one plus a 6-token reply and a 12-token message.
  const prompts = s.by_turn.map((t) => t.prompt_tokens!);
  for (let k = 1; k < 4; k++) expect(prompts[k] - prompts[k - 1]).toBeCloseTo(18, 5);
  expect(s.context_growth!.delivered).toBeCloseTo(s.context_growth!.requested, 5);
  expect(result.requests.by_class.ok).toBe((await server.received()).length);
}, 15_000);

test('with a shared system prompt each turn carries one message more, the same system prompt first', async () => {
  const { convs } = await run('  prefix: { shared_tokens: 5 }');
  const complete = convs.filter((c) => c.length === 4);
  expect(complete.length).toBeGreaterThanOrEqual(3);
  for (const c of complete) expectConversation(c, 1);
  const systems = new Set(convs.flat().map((r) => r.messages[0].content));
  expect(systems.size).toBe(1);
  expect(convs.flat().every((r) => r.messages[0].role === 'system')).toBe(true);
}, 15_000);

test('a failed turn ends its conversation: counted once, never retried, nothing sent after it', async () => {
  const { result, convs } = await run('', 5); // every other third turn fails
  const failedAt = convs.filter((c) => c.some((r) => r.status === 500));
  expect(failedAt.length).toBeGreaterThanOrEqual(1);
  for (const c of failedAt) {
    expect(c).toHaveLength(3);
    expect(c[2].status).toBe(500);
  }
  const s = result.workload.plan!.sessions!;
  expect(s.ended_by_failure).toBe(failedAt.length);
  expect(result.requests.by_class.http_5xx).toBe(failedAt.length);
  expect(s.completed + s.cut_by_run_end + s.ended_by_failure).toBe(s.started);
  expect(result.validity.checks.find((c) => c.name === 'sessions_delivered')!.ok).toBe(false);
}, 15_000);

test('ShareGPT conversations use all their human turns, in order, each asking for its reference reply’s length', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadgate-sessions-'));
  const turns = (k: number) => [
    { from: 'human', value: `first question ${k}` },
    { from: 'gpt', value: 'one two three' },
    { from: 'human', value: `second question ${k} here` },
    { from: 'gpt', value: 'four five' },
    { from: 'human', value: `third ${k}` },
    { from: 'gpt', value: 'six seven eight nine' },
  ];
  writeFileSync(join(dir, 'chats.json'), JSON.stringify([0, 1, 2, 3, 4, 5, 6, 7].map((k) => ({ conversations: turns(k) }))));
  server = await startConversationServer({ tokens: 3, ttftMs: 5, itlMs: 1 });
  const text = `target: { url: ${server.baseUrl}, model: test-model, request_timeout: 5s, ready_timeout: 5s }
workload:
  calibrate: off
  dataset: { path: chats.json, format: sharegpt }
  sessions: { think_time: 50ms }
load: { rate: 3, arrival: constant, warmup: 0s, steady: 1s, cooldown: 1s }
`;
  const resolved = { ...parseSpec(text, join(dir, 'spec.yml'), {}), specDir: dir };
  await runBenchmark({ resolved });
  const convs = conversations(await server.received()).filter((c) => c.length === 3);
  expect(convs.length).toBeGreaterThanOrEqual(2);
  for (const c of convs) {
    const k = /first question (\d)/.exec(c[0].messages[0].content)![1];
    expect(c.map((r) => r.messages[r.messages.length - 1].content)).toEqual([
      `first question ${k}`,
      `second question ${k} here`,
      `third ${k}`,
    ]);
    expect(c.map((r) => r.maxTokens)).toEqual([3, 2, 4]);
  }
}, 15_000);
