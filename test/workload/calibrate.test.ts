import { LOOPBACK_NETWORK_PROBES } from '../../src/run/server-watch.js';
import { runBenchmark } from '../../src/run/run.js';
import type { Result } from '../../src/result/types.js';
import { parseSpec } from '../../src/spec/load.js';
import { findCounter, fitLine } from '../../src/workload/calibrate.js';
import { errorResponse, openaiStream, startScriptedServer, type Script, type ScriptedServer } from '../fixtures/scripted-server.js';

/**
 * A server with a tokenizer unlike the simulator's: a word of n characters is ⌈n/4⌉ tokens,
 * chat messages are wrapped in a template with its own tokens, completions get a BOS token.
 * Its usage counts follow the same rules, so a run's delivered input tokens show whether
 * calibration sized the prompts for this tokenizer.
 */
type Style = 'vllm' | 'llama.cpp' | 'none' | 'no-usage';
interface Msg {
  role: string;
  content: string;
}
const count = (text: string) => (text.match(/\S+/g) ?? []).reduce((a, w) => a + Math.ceil(w.length / 4), 0);
const render = (messages: Msg[]) => `${messages.map((m) => `<|start|> ${m.role} ${m.content} <|end|>`).join(' ')} <|assistant|>`;
const promptTokens = (b: { messages?: Msg[]; prompt?: string }) => (b.messages ? count(render(b.messages)) : 1 + count(b.prompt!));
const json = (body: unknown): Script => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  steps: [{ send: JSON.stringify(body) }, { end: true }],
});

function tokenizerServer(style: Style): Promise<ScriptedServer> {
  return startScriptedServer((req) => {
    if (req.url.endsWith('/models')) return json({ data: [] });
    const b = req.body ? JSON.parse(req.body) : {};
    if (req.url === '/tokenize' && style === 'vllm' && b.model) return json({ count: promptTokens(b), max_model_len: 8192 });
    if (req.url === '/tokenize' && style === 'llama.cpp' && typeof b.content === 'string')
      return json({ tokens: new Array(count(b.content) + (b.add_special ? 1 : 0)).fill(7) });
    if (req.url === '/apply-template' && style === 'llama.cpp') return json({ prompt: render(b.messages) });
    if (req.url === '/v1/chat/completions' || req.url === '/v1/completions') {
      const n = promptTokens(b);
      if (b.stream) return openaiStream({ api: b.messages ? 'chat' : 'completions', promptTokens: n, tokens: b.max_tokens });
      return json({
        choices: [{ index: 0, message: { role: 'assistant', content: 'x' } }],
        ...(style === 'no-usage' ? {} : { usage: { prompt_tokens: n, completion_tokens: 1 } }),
      });
    }
    return errorResponse(404, `no route ${req.url}`);
  });
}

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const run = (workload: string, api = 'chat'): Promise<Result> =>
  runBenchmark({
    resolved: parseSpec(
      `target: {url: ${server!.baseUrl}, model: m, api: ${api}}\nworkload: ${workload}\nload: {rate: 20, arrival: constant, warmup: 0s, steady: 1s, cooldown: 0s}`,
      'x.yml',
      {},
    ),
  });
const deviation = (r: Result) => r.workload.input_tokens.delivered!.mean / r.workload.input_tokens.requested!.mean - 1;

test('the line through exact counts is exact', () => {
  expect(fitLine([10, 20, 40].map((w) => ({ words: w, tokens: 7 + 1.5 * w })))).toEqual({ slope: 1.5, intercept: 7, maxResidual: 0 });
});

describe('calibrating against a tokenizer unlike the simulator', () => {
  test.each([128, 1000])('probe requests (no /tokenize): delivered input is within 5 %% of %i requested tokens', async (tokens) => {
    server = await tokenizerServer('none');
    const r = await run(`{input_tokens: ${tokens}, output_tokens: 4}`);
    const c = r.workload.plan!.calibration;
    expect(c).toMatchObject({ method: 'probe', source: 'usage.prompt_tokens of 1-token requests', samples: 4 });
    // The filler words average ~1.5 tokens here, and the template plus the unique first word ~10.
    expect(c.tokens_per_word).toBeGreaterThan(1.3);
    expect(c.tokens_per_word).toBeLessThan(1.7);
    expect(c.overhead_tokens).toBeGreaterThan(8);
    expect(Math.abs(deviation(r))).toBeLessThan(0.05);
    expect(r.validity.checks.find((k) => k.name === 'workload_delivered')).toMatchObject({
      ok: true,
      message: expect.stringMatching(/^input mean .* needs within 5 %\)/),
    });
  });

  test('vLLM-style /tokenize with messages, including a shared system prompt', async () => {
    server = await tokenizerServer('vllm');
    const r = await run('{input_tokens: 600, output_tokens: 4, prefix: {shared_tokens: 200}}');
    expect(r.workload.plan!.calibration).toMatchObject({ method: 'tokenize', source: 'POST /tokenize (vLLM-style)', samples: 6 });
    // 200 prefix tokens asked for; the system message's template adds a few.
    expect(Math.abs(r.workload.plan!.calibration.prefix_tokens - 205)).toBeLessThan(8);
    expect(Math.abs(deviation(r))).toBeLessThan(0.05);
  });

  test.each(['chat', 'completions'])('llama.cpp-style /tokenize (%s)', async (api) => {
    server = await tokenizerServer('llama.cpp');
    const r = await run('{input_tokens: 300, output_tokens: 4}', api);
    expect(r.workload.plan!.calibration.method).toBe('tokenize');
    expect(r.workload.plan!.calibration.source).toMatch(/llama\.cpp-style/);
    expect(Math.abs(deviation(r))).toBeLessThan(0.05);
  });

  test('without any way to count, auto says so and assumes one token per word; the wider tolerance applies', async () => {
    server = await tokenizerServer('no-usage');
    const r = await run('{input_tokens: 128, output_tokens: 4}');
    expect(r.workload.plan!.calibration).toMatchObject({ method: 'off', tokens_per_word: 1, overhead_tokens: 0 });
    expect(r.workload.plan!.calibration.source).toMatch(
      /^no tokenizer answered \(POST \/tokenize \(vLLM-style\): HTTP 404 \(no route \/tokenize\); .*\); assumed one token per word/,
    );
    // Unsized prompts miss the target by far more than 10 % on this tokenizer, and the check says why.
    const check = r.validity.checks.find((k) => k.name === 'workload_delivered')!;
    expect(check.ok).toBe(false);
    expect(check.message).toMatch(/needs within 10 %\).*prompts were not sized with the target's tokenizer \(see workload\.calibrate\)$/);
  });

  test('an explicit method that the target cannot serve is an error, not a silent fallback', async () => {
    server = await tokenizerServer('none');
    await expect(run('{calibrate: tokenize}')).rejects.toThrow(
      /^workload\.calibrate is tokenize, but the target has no usable tokenize endpoint \(.*HTTP 404.*\); expected a vLLM, SGLang or llama\.cpp server, or calibrate: probe$/,
    );
    await expect(
      findCounter('probe', { baseUrl: server.baseUrl, api: 'chat', model: 'm', headers: {}, timeoutMs: 2000 }),
    ).resolves.toMatchObject({ method: 'probe' });
  });

  test('calibrate: off sends no calibration request', async () => {
    server = await tokenizerServer('vllm');
    const r = await run('{calibrate: off, input_tokens: 64, output_tokens: 4}');
    expect(r.workload.plan!.calibration).toMatchObject({
      method: 'off',
      source: "assumed one token per word (the simulator's rule)",
      samples: 0,
    });
    expect(server.requests).toBe(1 + (r.network!.warmup_probes ?? 0) + LOOPBACK_NETWORK_PROBES + r.requests.scheduled); // the readiness probe, the network probes' GET /models (warm-up probes first: a loopback target) and the run
  });
});
