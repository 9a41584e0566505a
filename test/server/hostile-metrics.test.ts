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
