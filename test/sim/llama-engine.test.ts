/**
 * A real engine, not the simulator: llama.cpp (node-llama-cpp's prebuilt CPU build) serving the
 * random-weight model of test/fixtures/gguf.mjs through test/fixtures/llama-server.mjs, in its own
 * process. A short open-loop run must complete its requests with exactly max_tokens tokens, and
 * the client's TTFT must agree with the server's own record of when it wrote each first token.
 *
 * node-llama-cpp is installed outside the project's dependencies (scripts/install-node-llama-cpp.sh);
 * without it this file skips, saying so.
 */
import { runBenchmark } from '../../src/run/run.js';
import { parseSpec } from '../../src/spec/load.js';
import { llamaUnavailable, spawnLlamaServer, type LlamaRecord, type LlamaServerProcess } from '../fixtures/llama-server.mjs';

const unavailable = llamaUnavailable();
const OUTPUT_TOKENS = 16;

function spec(url: string) {
  return parseSpec(
    `name: llama-engine
target: { url: ${url}, api: chat, model: tiny-llama, request_timeout: 20s, ready_timeout: 20s }
workload: { seed: 11, input_tokens: 64, output_tokens: ${OUTPUT_TOKENS}, calibrate: auto }
load: { arrival: poisson, rate: 3, warmup: 1s, steady: 3s, cooldown: 0s }
slo: { ttft_ms: 2000 }
`,
    'llama-engine.yml',
    {},
  );
}

/** Median as HdrHistogram ranks its p50: the ⌈n/2⌉-th smallest. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length / 2) - 1];

(unavailable ? describe.skip : describe)(`a real llama.cpp engine${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  let server: LlamaServerProcess;
  beforeAll(async () => {
    server = await spawnLlamaServer(['--slots', '4', '--threads', '1']);
  }, 60_000);
  afterAll(() => server?.stop());

  test('a short run completes with exactly max_tokens tokens per request, and its TTFT is the server’s', async () => {
    const lines: string[] = [];
    const result = await runBenchmark({ resolved: spec(server.url), onRecordLine: (l) => lines.push(l) });
    const window = result.requests.window;
    expect(window.scheduled).toBeGreaterThanOrEqual(4);
    expect(window.by_class.ok).toBe(window.scheduled);
    expect(result.workload.token_source).toBe('usage');
    // calibrate: auto found the server's /tokenize, so the prompts are the server's 64 tokens.
    expect(Math.abs(result.workload.input_tokens.delivered!.p50 - 64)).toBeLessThanOrEqual(3);

    const truth = new Map((await server.records()).map((r: LlamaRecord) => [r.id, r]));
    const records = lines.map((l) => JSON.parse(l) as Record<string, number | string | boolean | null>).filter((r) => r.in_window);
    expect(records).toHaveLength(window.scheduled);
    const added: number[] = [];
    for (const r of records) {
      const t = truth.get(r.request_id as string)!;
      expect([r.output_tokens, t.completion_tokens, t.finish]).toEqual([OUTPUT_TOKENS, OUTPUT_TOKENS, 'length']);
      expect(r.prompt_tokens).toBe(t.prompt_tokens);
      // Never early: a request arrives after it was sent, a token is read after it was written
      // (0.5 ms for the two processes' clocks: each is its own performance.timeOrigin + now()).
      const [send, first] = [r.t_send as number, r.t_first as number];
      expect(t.arrived_at).toBeGreaterThanOrEqual(send - 0.5);
      expect(first).toBeGreaterThanOrEqual(t.first_write_at! - 0.5);
      // What the client adds to TTFT: when it read the first token beside when the server wrote it.
      added.push(first - t.first_write_at!);
    }
    // The engine's own TTFT here is tens of ms: the client's loopback read adds a few at most.
    expect(median(added)).toBeLessThan(5);
  }, 30_000);

  test('decodes up to its 4 slots at once and queues the rest in arrival order', async () => {
    const before = (await server.records()).length;
    const ask = (i: number) =>
      fetch(`${server.url}/completions`, {
        method: 'POST',
        headers: { 'x-request-id': `batch-${i}` },
        body: JSON.stringify({ model: 'tiny-llama', prompt: `the model serves tokens ${i}`, max_tokens: 24, stream: true }),
      }).then((r) => r.text());
    const bodies = await Promise.all([0, 1, 2, 3, 4, 5].map(ask));
    for (const b of bodies) expect(b.match(/^data: \{/gm)).toHaveLength(24);
    const records = (await server.records()).slice(before).sort((a, b) => a.arrived_at - b.arrived_at);
    expect(records).toHaveLength(6);
    const firstDone = Math.min(...records.map((r) => r.last_write_at!));
    // The first four decode together: each was admitted before any of them finished...
    for (const r of records.slice(0, 4)) expect(r.admitted_at!).toBeLessThan(firstDone);
    // ...and the last two waited for a free slot, in the order they arrived.
    for (const r of records.slice(4)) expect(r.admitted_at!).toBeGreaterThanOrEqual(firstDone);
    expect(records[5].admitted_at!).toBeGreaterThanOrEqual(records[4].admitted_at!);
  }, 20_000);
});
