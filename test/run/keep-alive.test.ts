/**
 * A server that advertises keep-alive and closes each connection after its
 * streamed response (llama.cpp's llama-server does) loses no request. 40 req/s for 6 s: a client
 * that reuses such a connection loses about 4 % of its requests (29 of 687), so a run of 240
 * would lose none by chance with probability 0.958^240 ≈ e^−10; the other tests stay shorter.
 */
import { maxOf } from '../../src/numbers.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KEEP_ALIVE_DISABLED_REASON } from '../../src/client/keep-alive.js';
import { compare } from '../../src/gate/compare.js';
import { gateOf } from '../../src/spec/gate-schema.js';
import { renderConsoleReport } from '../../src/report/console.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { readResult } from '../../src/result/load.js';
import type { Result } from '../../src/result/types.js';
import { runBenchmark } from '../../src/run/run.js';
import { openaiStream, startScriptedServer, type Script, type ScriptedServer, type ServerOptions } from '../fixtures/scripted-server.js';
import { specFor } from './helpers.js';

const models: Script = { status: 200, steps: [{ send: '{"data":[]}' }, { end: true }] };
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

let server: ScriptedServer | undefined;
afterEach(() => server?.close());

/** A fixture streaming ~10 ms responses; the ids of the completion requests it answered. */
async function closingServer(opts: ServerOptions) {
  const answered: string[] = [];
  server = await startScriptedServer((req) => {
    if (req.url.endsWith('/models')) return models;
    answered.push(String(req.headers['x-request-id']));
    return openaiStream({ ttftMs: 3, itlMs: 1, tokens: 6 });
  }, opts);
  return { answered };
}

/** Every window request ok, every arrival in one class, and each re-send one the server had left unanswered. */
function expectNoneLost(r: Result, answered: string[]) {
  expect(sum(r.requests.by_class)).toBe(r.requests.scheduled);
  expect(r.requests.window.scheduled).toBeGreaterThan(200);
  expect(r.requests.window.by_class.ok).toBe(r.requests.window.scheduled);
  expect(r.requests.by_class.ok).toBe(r.requests.scheduled);
  // Ground truth: the server answered every request exactly once, so nothing it answered was
  // sent twice; each request it read and left unanswered was re-sent (a re-sent request may
  // also have been lost unread, in the socket, when the server closed); and each re-send
  // followed a close by the server.
  expect(new Set(answered).size).toBe(r.requests.scheduled);
  expect(answered).toHaveLength(r.requests.scheduled);
  expect(r.requests.reconnects).toBeGreaterThanOrEqual(server!.unanswered);
  expect(r.requests.reconnects).toBeLessThanOrEqual(r.requests.keep_alive!.server_closed);
  expect(r.requests.keep_alive).toMatchObject({ disabled: true, reason: KEEP_ALIVE_DISABLED_REASON });
  expect(r.requests.keep_alive!.server_closed).toBeGreaterThanOrEqual(3);
}

test('closes right after each stream: at 40 req/s for 6 s every request is ok, keep-alive is disabled, the report says so', async () => {
  const { answered } = await closingServer({ closeAfterResponseMs: 0 });
  const r = await runBenchmark({
    resolved: specFor(server!.baseUrl, 'rate: 40\narrival: poisson\nwarmup: 0s\nsteady: 6s\ncooldown: 0s', '', { requestTimeout: '5s' }),
  });
  expectNoneLost(r, answered);
  // After keep-alive went off, one connection per request (plus the few before it).
  expect(server!.connections).toBeGreaterThanOrEqual(r.requests.scheduled);
  const gate = compare(null, r, gateOf(r.spec));
  expect(renderMarkdown(gate, null, r)).toContain(`#### Connections (current run)\n\n${KEEP_ALIVE_DISABLED_REASON} (it closed`);
  const report = renderConsoleReport(r, gate);
  expect(report).toMatch(new RegExp(`^Connections ${KEEP_ALIVE_DISABLED_REASON} \\(it closed \\d+ of \\d+ kept-alive connections`, 'm'));
}, 60_000);

test('closes a few ms later, while the next request is on the wire: the CLI run loses none and counts the re-sends', async () => {
  // Constant arrivals 25 ms apart and ~10 ms streams: the next request goes out ~15 ms after the
  // previous response, maybe on its connection, which the server destroys 10 ms after the
  // response. Whether any request is caught is up to timing (keep-alive goes off after three
  // closes); the next test makes sure some are.
  const { answered } = await closingServer({ closeAfterResponseMs: 10 });
  const dir = mkdtempSync(join(tmpdir(), 'loadgate-keepalive-'));
  const spec = join(dir, 'spec.yml');
  writeFileSync(
    spec,
    `name: keep-alive
target: { url: "${server!.baseUrl}", model: test-model, request_timeout: 5s }
workload: { seed: 5, calibrate: off, input_tokens: 16, output_tokens: 8 }
load: { rate: 40, arrival: constant, warmup: 0s, steady: 6s, cooldown: 0s }
`,
  );
  const out = join(dir, 'result.json');
  const cli = join(process.cwd(), 'bin', 'loadgate.js');
  const { stdout } = await promisify(execFile)(process.execPath, [cli, 'run', spec, '--out', out, '--workers', '1'], {
    timeout: 60_000,
  }).catch((e: { code: number; stdout: string; stderr: string }) => {
    if (e.code === 3 || e.stdout === undefined) throw new Error(`loadgate run failed: ${e.stderr}`);
    return e; // a gate verdict other than pass is not this test's business
  });
  const r = readResult(out);
  expectNoneLost(r, answered);
  expect(JSON.parse(readFileSync(out, 'utf8')).requests.reconnects).toBe(r.requests.reconnects);
  const n = r.requests.reconnects!;
  const resent = n === 0 ? '$' : ` · ${n} requests? re-sent on a new connection: the server had closed the reused one unanswered$`;
  expect(stdout).toMatch(
    new RegExp(
      `^Connections ${KEEP_ALIVE_DISABLED_REASON} \\(.*\\), so each later request opened its own \\(connect time shows in pool wait\\)${resent}`,
      'm',
    ),
  );
}, 60_000);

test('requests caught on the wire by the close are re-sent, counted exactly, and end ok; the wait shows in their TTFT', async () => {
  // The server destroys each connection 100 ms after its response: the next request, 25 ms
  // later, goes out on it and is read but never answered.
  const { answered } = await closingServer({ closeAfterResponseMs: 100 });
  const lines: string[] = [];
  const r = await runBenchmark({
    resolved: specFor(server!.baseUrl, 'rate: 40\narrival: constant\nwarmup: 0s\nsteady: 2s\ncooldown: 0s', '', { requestTimeout: '5s' }),
    onRecordLine: (l) => lines.push(l),
  });
  expect(sum(r.requests.by_class)).toBe(r.requests.scheduled);
  expect(r.requests.by_class.ok).toBe(r.requests.scheduled);
  expect(new Set(answered).size).toBe(r.requests.scheduled);
  expect(r.requests.reconnects).toBeGreaterThanOrEqual(1);
  // Every lost request had reached the server long before the close: the count is exact.
  expect(r.requests.reconnects).toBe(server!.unanswered);
  // A re-sent request kept its intended send time: its TTFT holds the wait until its second
  // attempt reached the server, as the server recorded both arrivals (same clock).
  const arrivals = new Map<string, number[]>();
  for (const t of server!.timings) if (t.id) arrivals.set(t.id, [...(arrivals.get(t.id) ?? []), t.arrivedAt]);
  const records = new Map(lines.map((l) => JSON.parse(l)).map((x) => [x.request_id as string, x]));
  const resent = [...arrivals].filter(([, at]) => at.length === 2);
  expect(resent).toHaveLength(r.requests.reconnects!);
  for (const [id, [first, second]] of resent) {
    const rec = records.get(id)!;
    expect(second).toBeGreaterThan(first);
    expect(rec.t_first).toBeGreaterThan(second);
  }
  const waited = maxOf(resent.map(([id, at]) => at[1] - records.get(id)!.t_sched));
  expect(r.metrics.ttft_ms!.max).toBeGreaterThanOrEqual(waited);
}, 30_000);

test('with two generator threads, each watches its own connections, and the run says what they found', async () => {
  await closingServer({ closeAfterResponseMs: 0 });
  const r = await runBenchmark({
    resolved: specFor(server!.baseUrl, 'rate: 40\narrival: constant\nwarmup: 0s\nsteady: 2s\ncooldown: 0s', '', { requestTimeout: '5s' }),
    workers: 2,
  });
  expect(sum(r.requests.by_class)).toBe(r.requests.scheduled);
  expect(r.requests.by_class.ok).toBe(r.requests.scheduled);
  expect(r.requests.keep_alive).toMatchObject({ disabled: true, reason: KEEP_ALIVE_DISABLED_REASON });
  // Both threads learned it on their own: at least three closes each.
  expect(r.requests.keep_alive!.server_closed).toBeGreaterThanOrEqual(6);
  expect(r.requests.reconnects).toBeGreaterThanOrEqual(server!.unanswered);
}, 30_000);
