import { validateSimConfig } from '../../src/sim/config.js';
import { saturationRate } from '../../src/sim/engine.js';
import { launchSim } from '../../src/sim/launch.js';
import { agent, chatBody, contentEvents, metric, parsedEvents, post, request, sleep, streaming, words, type Reply } from './helpers.js';

afterAll(() => agent.destroy());

const timing = (r: Reply) => JSON.parse(r.body).sim_timing;
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Sends `count` non-streaming requests at a constant rate and resolves with all replies. */
async function offer(origin: string, rate: number, count: number, body: object): Promise<Reply[]> {
  const replies: Promise<Reply>[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    await sleep(start + (i * 1000) / rate - performance.now());
    replies.push(post(origin, '/v1/completions', body));
  }
  return Promise.all(replies);
}

test('below the analytic saturation rate there is no queue; at 1.5× it the queue grows', async () => {
  const config = { max_num_seqs: 4, decode_base_ms: 4, decode_ms_per_seq: 1, prefill_ms_per_token: 0.02 };
  const capacity = saturationRate(validateSimConfig(config), 50, 20); // 25 requests/s
  const body = { prompt: words(50), max_tokens: 20, ignore_eos: true };
  const sim = await launchSim({ ...config, enable_prefix_caching: false });
  try {
    const calm = (await offer(sim.origin, 0.3 * capacity, 12, body)).map(timing);
    expect(mean(calm.map((t) => t.admitted - t.received))).toBeLessThan(8); // waits for the next step boundary only

    const arrivals = offer(sim.origin, 1.5 * capacity, 75, body);
    await sleep(2000 * 0.95);
    expect(await metric(sim.origin, 'vllm:num_requests_waiting')).toBeGreaterThanOrEqual(10); // ≈ 0.5 × 25/s × 2 s
    const busy = (await arrivals).map(timing).sort((a, b) => a.received - b.received);
    const wait = (ts: typeof busy) => mean(ts.map((t) => t.admitted - t.received));
    expect(wait(busy.slice(-10))).toBeGreaterThan(300);
    expect(wait(busy.slice(-10))).toBeGreaterThan(5 * wait(busy.slice(0, 10)));
    // While saturated the engine completes requests at the analytic rate.
    const done = busy.map((t) => t.last_token).sort((a, b) => a - b);
    const achieved = (done.length - 31) / ((done.at(-1) - done[30]) / 1000);
    expect(achieved / capacity).toBeGreaterThan(0.85);
    expect(achieved / capacity).toBeLessThan(1.15);
  } finally {
    await sim.stop();
  }
});

test('prefix cache: an identical prompt skips its cached blocks and gets a much lower TTFT', async () => {
  const sim = await launchSim({ decode_base_ms: 2, prefill_ms_per_token: 0.2, block_size: 16 });
  try {
    const ask = async (prompt: string) => timing(await post(sim.origin, '/v1/completions', { prompt, max_tokens: 2, ignore_eos: true }));
    const shared = words(512, 'shared');
    const unique = [await ask(shared), await ask(words(512, 'other')), await ask(words(512, 'third'))];
    const repeated = [await ask(shared), await ask(shared), await ask(shared)];
    for (const t of unique) expect(t.cached_tokens).toBe(0);
    for (const t of repeated) expect(t.cached_tokens).toBe(496); // 31 of 32 blocks: the last token is recomputed
    const ttft = (t: { first_token: number; admitted: number }) => t.first_token - t.admitted;
    expect(Math.min(...unique.map(ttft))).toBeGreaterThan(100); // 2 + 512 × 0.2 ms
    expect(median(repeated.map(ttft))).toBeLessThan(0.3 * median(unique.map(ttft))); // 2 + 16 × 0.2 ms
    expect(await metric(sim.origin, 'vllm:prefix_cache_hits_total')).toBe(3 * 496);
  } finally {
    await sim.stop();
  }
});

test("chunked prefill: a long prompt arriving mid-decode stretches its neighbour's ITL one chunk at a time", async () => {
  // 1024 prompt tokens in 255-token chunks (the neighbour's decode takes 1 of the 256): 4 steps of 4 + 0.2 + 51 ms.
  const sim = await launchSim({ max_num_batched_tokens: 256, prefill_ms_per_token: 0.2, decode_base_ms: 4, decode_ms_per_seq: 0.2 });
  try {
    const neighbour = post(sim.origin, '/v1/chat/completions', chatBody('short', { max_tokens: 100, ignore_eos: true }));
    await sleep(100);
    const long = post(sim.origin, '/v1/completions', { prompt: words(1024), max_tokens: 1 });
    const itl = contentEvents(await neighbour)
      .map((e, i, all) => (i ? e.t - all[i - 1].t : 0))
      .slice(1);
    expect(median(itl)).toBeLessThan(8); // 4.2 ms decode steps
    expect(itl.filter((x) => x > 35).length).toBeGreaterThanOrEqual(3);
    // Chunks interleave with decode steps: the neighbour never waits out the whole 205 ms prefill.
    expect(Math.max(...itl)).toBeLessThan(120);
    const t = timing(await long);
    expect(t.first_token - t.received).toBeGreaterThan(4 * 55);
  } finally {
    await sim.stop();
  }
});

test('slowdown 1.15 makes every step 15 % longer', async () => {
  const run = async (slowdown: number) => {
    const sim = await launchSim({ slowdown, decode_base_ms: 8, decode_ms_per_seq: 0.5, prefill_ms_per_token: 0.05 });
    try {
      const tpots: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t = timing(await post(sim.origin, '/v1/completions', { prompt: words(100), max_tokens: 25, ignore_eos: true }));
        tpots.push((t.last_token - t.first_token) / 24);
      }
      return { tpot: median(tpots), busy: await metric(sim.origin, 'loadgate_sim_busy_seconds_total') };
    } finally {
      await sim.stop();
    }
  };
  const base = await run(1);
  const slow = await run(1.15);
  expect(slow.busy / base.busy).toBeCloseTo(1.15, 6); // the model: same steps, each 15 % longer
  expect(base.tpot).toBeGreaterThan(8.5 - 0.5); // as a client sees it, give or take a busy machine
  expect(slow.tpot / base.tpot).toBeGreaterThan(1.08);
  expect(slow.tpot / base.tpot).toBeLessThan(1.22);
});

test('a stall pauses the engine: no step runs, no token flows', async () => {
  const sim = await launchSim({ decode_base_ms: 5, decode_ms_per_seq: 0 });
  try {
    const stream = streaming(sim.origin, '/v1/chat/completions', chatBody('x', { max_tokens: 40, ignore_eos: true }));
    await stream.started;
    const staller = timing(await post(sim.origin, '/v1/completions', { prompt: 'x', max_tokens: 1 }, { 'x-sim-fault': 'stall=150' }));
    const t = parsedEvents(await stream.reply).at(-1).sim_timing;
    expect(staller.first_token - staller.received).toBeGreaterThanOrEqual(150);
    // 40 steps of 5 ms plus the stall, unless the stall began after the stream's ideal end.
    expect(t.last_token - t.received).toBeGreaterThanOrEqual(Math.min(40 * 5, staller.received - t.received) + 150);
  } finally {
    await sim.stop();
  }
});

test('the KV budget caps how many sequences run; the rest wait FIFO', async () => {
  // 16 blocks of 16 tokens; each request needs ceil((40 + 40) / 16) = 5 blocks, so 3 fit.
  const sim = await launchSim({ kv_cache_tokens: 256, max_model_len: 256, block_size: 16, decode_base_ms: 5 });
  try {
    const replies = Array.from({ length: 6 }, (_, i) =>
      post(sim.origin, '/v1/completions', { prompt: words(40, `r${i}x`), max_tokens: 40, ignore_eos: true }),
    );
    while ((await request(sim.origin, 'GET', '/sim/requests')).body.split('"received"').length < 7) await sleep(5);
    await sleep(20); // a step boundary or two: the first three are admitted
    expect(await metric(sim.origin, 'vllm:num_requests_running')).toBe(3);
    expect(await metric(sim.origin, 'vllm:num_requests_waiting')).toBe(3);
    expect(await metric(sim.origin, 'vllm:kv_cache_usage_perc')).toBeCloseTo(15 / 16);
    const ts = (await Promise.all(replies)).map(timing).sort((a, b) => a.admitted - b.admitted);
    expect(ts[3].admitted - ts[0].admitted).toBeGreaterThanOrEqual(40 * 5); // the 4th waited for the 1st to finish
  } finally {
    await sim.stop();
  }
});
