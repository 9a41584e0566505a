import { compare } from '../../src/gate/compare.js';
import { gateOf } from '../../src/spec/gate-schema.js';
import { renderGateText } from '../../src/report/gate-text.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderHtml } from '../../src/report/html.js';
import { explainRules } from '../../src/report/explain.js';
import { runBenchmark } from '../../src/run/run.js';
import { launchSim } from '../../src/sim/launch.js';
import { parseSpec } from '../../src/spec/load.js';
import type { Result } from '../../src/result/types.js';

const spec = (baseUrl: string) =>
  parseSpec(
    `name: explain
target:
  url: ${baseUrl}
  model: sim-8b
  metrics_interval: 200ms
workload:
  seed: 3
  calibrate: off
  input_tokens: 16
  output_tokens: 30
load:
  rate: 16
  warmup: 1s
  steady: 4s
  cooldown: 0s
`,
    'test.yml',
    {},
  );

/** One run against a sim on `port` with this engine speed; the spec (and its hash) is the same for both runs. */
async function runOn(port: number, slowdown: number): Promise<{ result: Result; port: number }> {
  const sim = await launchSim({ max_num_seqs: 4, max_model_len: 4096, seed: 7, slowdown }, { port });
  try {
    const result = await runBenchmark({ resolved: spec(sim.baseUrl) });
    return { result, port: Number(new URL(sim.origin).port) };
  } finally {
    await sim.stop();
  }
}

test('a gate comparison whose current run had a longer simulated queue explains the TTFT rise by queue time and waiting requests', async () => {
  const baseline = await runOn(0, 1);
  // The same engine 40 % slower per step (past its saturation at this rate): at the same offered rate its queue runs longer.
  const current = await runOn(baseline.port, 1.4);
  const report = compare(baseline.result, current.result, gateOf(current.result.spec));
  const lines = explainRules(report, baseline.result, current.result);
  const ttft = lines.find((l) => l.startsWith('TTFT p95'));
  expect(ttft).toMatch(/^TTFT p95 \+[\d.]+ % \([\d.]+ → [\d.]+ ms\): /);
  expect(ttft).toMatch(/server queue time p95 [\d.]+ ms → [\d.]+ ms/);
  expect(ttft).toMatch(/requests waiting mean [\d.]+ → [\d.]+/);
  expect(ttft).toMatch(/; network RTT (unchanged \([\d.]+ ms\)|[\d.]+ → [\d.]+ ms)$/);
  // The figures named are the two runs' own.
  const b = baseline.result.server!;
  const c = current.result.server!;
  expect(c.queue_time_ms!.p95).toBeGreaterThan(b.queue_time_ms!.p95);
  expect(c.summary.waiting!.mean).toBeGreaterThan(b.summary.waiting!.mean);
  // Every report prints it: the terminal's gate text, the markdown (job summary, PR comment) and the HTML.
  expect(renderGateText(report, baseline.result, current.result)).toContain(`  why: ${ttft}`);
  expect(renderMarkdown(report, baseline.result, current.result)).toMatch(/- \*\*Why\*\*: TTFT p95 .*server queue time p95/);
  const html = renderHtml(report, baseline.result, current.result);
  expect(html).toMatch(/<li><b>Why<\/b>: TTFT p95 .*server queue time p95/);
  expect(html).toContain('Requests running and waiting (server, current run)');
  expect(html).toContain('KV cache in use (server)');
});
