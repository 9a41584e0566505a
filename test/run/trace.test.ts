import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runBenchmark } from '../../src/run/run.js';
import { parseSpec } from '../../src/spec/load.js';
import { startConversationServer, type ConversationServer } from '../fixtures/conversation-server.js';

let server: ConversationServer;
afterEach(() => server?.close());

const samplePath = fileURLToPath(new URL('../../examples/data/mooncake-sample.jsonl', import.meta.url));
const sample = readFileSync(samplePath, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { timestamp: number; input_length: number; output_length: number; hash_ids: number[] });

function traceSpec(baseUrl: string) {
  const text = `name: trace
target: { url: ${baseUrl}, model: test-model, request_timeout: 5s, ready_timeout: 5s }
workload:
  calibrate: off
  trace: { file: ${JSON.stringify(samplePath)}, format: mooncake }
load: { warmup: 0s, steady: 8s, cooldown: 500ms }
`;
  return parseSpec(text, 'trace.yml', {});
}

test('a Mooncake trace: 120 arrivals at their offsets, max_tokens = output_length, shared blocks as shared text', async () => {
  expect(sample).toHaveLength(120);
  server = await startConversationServer({ tokens: 4, ttftMs: 0, itlMs: 0 });
  const lines: { request_id: string; t_sched: number; t_send: number }[] = [];
  const result = await runBenchmark({ resolved: traceSpec(server.baseUrl), onRecordLine: (l) => lines.push(JSON.parse(l)) });
  const got = await server.received();
  expect(got).toHaveLength(120);
  expect(result.requests.by_class.ok).toBe(120);
  // The schedule is the trace: each request's intended time is the run's start plus its offset.
  const line = new Map(lines.map((l) => [l.request_id, l]));
  const runStart = line.get(got.find((r) => r.id.endsWith('-0'))!.id)!.t_sched - sample[0].timestamp;
  const index = (id: string) => Number(id.slice(id.lastIndexOf('-') + 1));
  for (const r of got) expect(Math.abs(line.get(r.id)!.t_sched - runStart - sample[index(r.id)].timestamp)).toBeLessThan(0.5);
  // And the server saw each one when the client says it sent it (a late send is the run's schedule
  // lag, which the result reports): never before, and typically within a loopback hop.
  const hop = got.map((r) => r.arrivedAt - line.get(r.id)!.t_send).sort((a, b) => a - b);
  expect(hop[0]).toBeGreaterThan(-2);
  expect(hop[Math.floor(hop.length / 2)]).toBeLessThan(15);
  for (const r of got) expect(r.maxTokens).toBe(sample[index(r.id)].output_length);
  // The server counts one token per word: every prompt has the trace's input length.
  const words = (r: (typeof got)[number]) =>
    r.messages
      .map((m) => m.content)
      .join(' ')
      .split(/\s+/);
  for (const r of got) expect(words(r)).toHaveLength(sample[index(r.id)].input_length);
  // Requests opening with the same hash id open with the same 512 words; different first ids, different words.
  const byFirstBlock = new Map<number, string>();
  for (const r of got) {
    const head = words(r).slice(0, 512).join(' ');
    const first = sample[index(r.id)].hash_ids[0];
    if (byFirstBlock.has(first)) expect(head).toBe(byFirstBlock.get(first));
    byFirstBlock.set(first, head);
  }
  expect(new Set(byFirstBlock.values()).size).toBe(byFirstBlock.size);
  expect(result.workload.plan).toMatchObject({ source: 'trace', trace: { arrivals: 120, replayed: 120, format: 'mooncake' } });
}, 20_000);
