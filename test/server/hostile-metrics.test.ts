/** A /metrics that never finishes its answer ends the server view with a note that says so. */
import { Scraper } from '../../src/server/scraper.js';
import { startScriptedServer, type ScriptedServer } from '../fixtures/scripted-server.js';

let server: ScriptedServer;
afterAll(async () => {
  await server.close();
});

test('a never-ending /metrics: the note says no complete answer came within the scrape timeout, not a bare code', async () => {
  server = await startScriptedServer(
    () => ({ status: 200, headers: { 'content-type': 'text/plain' }, steps: [{ send: '# HELP vllm:num_requests_running x\n' }] }),
    { metrics: true },
  );
  const origin = server.baseUrl.replace(/\/v1$/, '');
  const scraper = new Scraper({ url: `${origin}/metrics`, headers: {}, intervalMs: 100, timeoutMs: 300 });
  scraper.start();
  await new Promise((r) => setTimeout(r, 700));
  await scraper.stop();
  const t = Date.now();
  const section = scraper.section({ runStart: t, windowStart: t, windowEnd: t + 1, seriesIntervalS: 1, seriesLength: 1 });
  expect(JSON.stringify(section)).toContain(`no metrics at ${origin}/metrics (no complete answer within 300 ms)`);
  expect(JSON.stringify(section)).not.toContain('(23)');
});

test('an exposition of 100,000 series is refused as one short reason, at the 50,001st sample', async () => {
  const { ExpositionError, parseExposition } = await import('../../src/server/exposition.js');
  const text = Array.from({ length: 100_000 }, (_, i) => `vllm:num_requests_running{model_name="m${i}"} 1`).join('\n');
  expect(() => parseExposition(text)).toThrow(ExpositionError);
  expect(() => parseExposition(text)).toThrow(/^line 50001: more than 50,000 samples; expected an engine's own metrics/);
});

test("an engine serving two models: the view keeps the benchmarked model's series, and sums all only when none names it", async () => {
  const exposition = [
    '# TYPE vllm:num_requests_running gauge',
    'vllm:num_requests_running{model_name="target"} 3',
    'vllm:num_requests_running{model_name="other"} 7',
    '# TYPE vllm:time_to_first_token_seconds histogram',
    'vllm:time_to_first_token_seconds_bucket{model_name="target",le="0.1"} 4',
    'vllm:time_to_first_token_seconds_bucket{model_name="target",le="+Inf"} 5',
    'vllm:time_to_first_token_seconds_sum{model_name="target"} 0.4',
    'vllm:time_to_first_token_seconds_count{model_name="target"} 5',
    'vllm:time_to_first_token_seconds_bucket{model_name="other",le="0.1"} 90',
    'vllm:time_to_first_token_seconds_bucket{model_name="other",le="+Inf"} 100',
    'vllm:time_to_first_token_seconds_sum{model_name="other"} 9',
    'vllm:time_to_first_token_seconds_count{model_name="other"} 100',
    '',
  ].join('\n');
  const models = await startScriptedServer(
    () => ({ status: 200, headers: { 'content-type': 'text/plain' }, steps: [{ send: exposition }, { end: true }] }),
    { metrics: true },
  );
  try {
    const url = `${models.baseUrl.replace(/\/v1$/, '')}/metrics`;
    const scrapeOnce = async (model: string | undefined) => {
      const scraper = new Scraper({ url, headers: {}, intervalMs: 10_000, model });
      scraper.start();
      await scraper.stop();
      return scraper.snapshots[0];
    };
    const [target, unnamed, all] = await Promise.all([scrapeOnce('target'), scrapeOnce('not-listed'), scrapeOnce(undefined)]);
    expect(target.gauges.running).toBe(3);
    expect(target.histograms.ttft).toMatchObject({ counts: [4, 5], count: 5 });
    expect(unnamed.gauges.running).toBe(10);
    expect(all.gauges.running).toBe(10);
    expect(all.histograms.ttft).toMatchObject({ counts: [94, 105], count: 105 });
  } finally {
    await models.close();
  }
});
