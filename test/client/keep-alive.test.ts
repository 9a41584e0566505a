import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, type Client } from '../../src/client/client.js';
import { KEEP_ALIVE_DISABLED_REASON, shouldDisable } from '../../src/client/keep-alive.js';
import { buildRequestBody } from '../../src/client/openai.js';
import { now } from '../../src/time.js';
import { openaiStream, startScriptedServer, type Script, type ScriptedRequest, type ServerOptions } from '../fixtures/scripted-server.js';
import { RecordingSpy } from './recording-spy.js';

const body = buildRequestBody({ api: 'chat', model: 'test-model', prompt: 'hello', maxTokens: 4, ignoreEos: true });

/** A server and a client against it; each request's headers as the server saw them. */
async function withServer(
  script: (req: ScriptedRequest, n: number) => Script,
  opts: ServerOptions,
  run: (client: Client, seen: ScriptedRequest[], server: Awaited<ReturnType<typeof startScriptedServer>>) => Promise<void>,
) {
  const seen: ScriptedRequest[] = [];
  const server = await startScriptedServer((req) => {
    seen.push(req);
    return script(req, seen.length);
  }, opts);
  const client = createClient({ baseUrl: server.baseUrl, api: 'chat', timeoutMs: 5_000 });
  try {
    await run(client, seen, server);
  } finally {
    await client.close();
    await server.close();
  }
}

/** One request, awaited; then a pause so undici has freed its connection for the next. */
async function one(client: Client, id: string) {
  const rec = new RecordingSpy();
  const tSend = now();
  client.send(body, rec, id);
  const end = await rec.ended;
  await sleep(15);
  return { rec, end, tSend };
}

beforeAll(async () => {
  // The first request in a process pays for undici's lazy parser setup; keep it out of timed tests.
  await withServer(
    () => openaiStream({ tokens: 1 }),
    {},
    (client) => one(client, 'warm').then(() => undefined),
  );
});

test('the rule: at least 3 closes, and more than half of the observed responses', () => {
  expect([0, 1, 2].map((c) => shouldDisable(c, c))).toEqual([false, false, false]);
  expect(shouldDisable(3, 3)).toBe(true);
  expect(shouldDisable(3, 5)).toBe(true);
  expect(shouldDisable(3, 6)).toBe(false);
  expect(shouldDisable(50, 99)).toBe(true);
  expect(shouldDisable(50, 100)).toBe(false);
});

test('a request lost unanswered on a reused connection is re-sent once on a new one, its delay in its latency', async () => {
  // Request "a" is answered; the server reads nothing more on its connection and destroys it
  // 100 ms later. Request "b" goes out on that connection meanwhile and is lost unanswered.
  await withServer(
    () => openaiStream({ tokens: 2 }),
    { closeAfterResponseMs: 100 },
    async (client, seen, server) => {
      expect((await one(client, 'a')).end.outcome).toBe('ok');
      const { rec, end, tSend } = await one(client, 'b');
      expect(end).toEqual({ t: expect.any(Number), outcome: 'ok' });
      expect(rec.reconnects).toHaveLength(1);
      expect(rec.written).toHaveLength(2); // the lost attempt, then the one that counted
      // "b" reached the server twice: unanswered on the closing connection, then on a new one.
      expect(server.requests).toBe(3);
      expect(server.unanswered).toBe(1);
      expect(seen.map((r) => r.headers['x-request-id'])).toEqual(['a', 'b']);
      expect(seen[1].headers.connection).toBe('close');
      expect(server.connections).toBe(2);
      // The wait for the close (≈ 100 ms less the 15 ms pause) shows in time to first token.
      expect(server.timings[2].arrivedAt - tSend).toBeGreaterThan(50);
      expect(rec.contents[0].t).toBeGreaterThan(server.timings[2].arrivedAt);
      expect(rec.reconnects[0]).toBeLessThan(server.timings[2].arrivedAt);
    },
  );
});

test('re-sent once only: a second loss on the new connection is a connect_error', async () => {
  // The premise is that undici sends "b" on the connection "a" used. Should it open a new one
  // instead (two connections, "b" seen once, no re-send: a loss on a new connection is rightly
  // not re-sent), that run proves nothing and earns one more, which must hold the premise. A
  // client that failed to re-send would show one connection, "b" seen once.
  for (let attempt = 1; ; attempt++) {
    let premise = true;
    await withServer(
      (_req, n) => (n === 1 ? openaiStream({ tokens: 2 }) : { resetBeforeHeaders: true }),
      {},
      async (client, seen, server) => {
        expect((await one(client, 'a')).end.outcome).toBe('ok');
        const { rec, end } = await one(client, 'b');
        premise = !(server.connections === 2 && seen.length === 2 && rec.reconnects.length === 0);
        if (!premise && attempt === 1) return;
        expect(end.outcome).toBe('connect_error');
        expect(end.detail).toMatch(/ECONNRESET|other side closed/);
        expect(rec.reconnects).toHaveLength(1);
        expect(seen).toHaveLength(3);
        expect(server.connections).toBe(2);
      },
    );
    if (premise || attempt > 1) break;
  }
});

test('a lost response that had begun is not re-sent: the server saw it', async () => {
  await withServer(
    (_req, n) =>
      n === 1 ? openaiStream({ tokens: 2 }) : { status: 200, steps: [{ send: 'data: {}\n\n' }, { wait: 20 }, { reset: true }] },
    {},
    async (client, seen) => {
      await one(client, 'a');
      const { rec, end } = await one(client, 'b');
      expect(end.outcome).toBe('stream_error');
      expect(rec.reconnects).toEqual([]);
      expect(seen).toHaveLength(2);
    },
  );
});

test('a server that closes every connection after its response: keep-alive is disabled after the third', async () => {
  await withServer(
    () => openaiStream({ tokens: 2 }),
    { closeAfterResponseMs: 0 },
    async (client, seen, server) => {
      for (let i = 0; i < 8; i++) expect((await one(client, `r${i}`)).end.outcome).toBe('ok');
      expect(client.keepAlive()).toEqual({ disabled: true, responses_observed: 3, server_closed: 3, reason: KEEP_ALIVE_DISABLED_REASON });
      // From the fourth request on (the third close came before it), each says `Connection: close` and comes on its own connection.
      expect(seen.map((r) => r.headers.connection)).toEqual([...Array(3).fill('keep-alive'), ...Array(5).fill('close')]);
      expect(server.connections).toBe(8);
    },
  );
});

test('a server that keeps its connections: one connection, keep-alive stays on', async () => {
  await withServer(
    () => openaiStream({ tokens: 2 }),
    {},
    async (client, seen, server) => {
      for (let i = 0; i < 6; i++) expect((await one(client, `r${i}`)).end.outcome).toBe('ok');
      expect(client.keepAlive()).toEqual({ disabled: false, responses_observed: 5, server_closed: 0 });
      expect(server.connections).toBe(1);
      expect(seen.every((r) => r.headers.connection === 'keep-alive')).toBe(true);
    },
  );
});

test('a server that says `Connection: close` is taken at its word, not counted against keep-alive', async () => {
  await withServer(
    () => ({ ...openaiStream({ tokens: 2 }), headers: { 'content-type': 'text/event-stream', connection: 'close' } }),
    {},
    async (client, _seen, server) => {
      for (let i = 0; i < 5; i++) expect((await one(client, `r${i}`)).end.outcome).toBe('ok');
      expect(client.keepAlive()).toEqual({ disabled: false, responses_observed: 0, server_closed: 0 });
      expect(server.connections).toBe(5);
    },
  );
});
