import { runBenchmark } from '../../src/run/run.js';
import { launchSim, type SimHandle } from '../../src/sim/launch.js';
import { parseSpec } from '../../src/spec/load.js';
import type { GroundTruth } from '../../src/sim/ground-truth.js';
import { compare } from '../../src/gate/compare.js';
import { gateOf } from '../../src/spec/gate-schema.js';
import { renderConsoleReport } from '../../src/report/console.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { parseResult } from '../../src/result/load.js';

/** Sessions against the simulator (needs the bundle: node scripts/bundle.mjs), held against its ground truth. */
let sim: SimHandle;
beforeAll(async () => {
  sim = await launchSim({ seed: 4 });
});
afterAll(() => sim?.stop());

const BLOCK = 16; // the simulator's default block_size

test('each later turn finds the previous prompt and reply in the simulator’s prefix cache; per-turn figures match its truth', async () => {
  const text = `target: { url: ${sim.baseUrl}, model: sim-8b, metrics_interval: 200ms }
workload: { seed: 9, input_tokens: 40, output_tokens: 24, sessions: { turns: 3, think_time: 50ms } }
load: { rate: 4, arrival: constant, warmup: 0s, steady: 1s, cooldown: 1500ms }
`;
  const r = await runBenchmark({ resolved: parseSpec(text, 'x.yml', {}) });
  const truth = (await (await fetch(`${sim.origin}/sim/requests`)).json()) as GroundTruth[];
  expect(truth.length).toBe(r.requests.scheduled);
  const s = r.workload.plan!.sessions!;
  expect(s.completed).toBeGreaterThanOrEqual(4);
  // Turn k's prompt is turn k − 1's plus its 24-token reply and a 40-token message; all but the last partial block are cached.
  const rows = s.by_turn;
  expect(rows.map((t) => t.prompt_tokens)).toEqual([40, 104, 168]);
  const byPrompt = new Map<number, number[]>();
  for (const t of truth) byPrompt.set(t.prompt_tokens, [...(byPrompt.get(t.prompt_tokens) ?? []), t.cached_tokens]);
  expect(new Set(byPrompt.get(40))).toEqual(new Set([0]));
  expect(new Set(byPrompt.get(104))).toEqual(new Set([Math.floor(64 / BLOCK) * BLOCK]));
  expect(new Set(byPrompt.get(168))).toEqual(new Set([Math.floor(128 / BLOCK) * BLOCK]));
  expect(s.server_prefix_cache_hit_rate).not.toBeNull();
  expect(r.validity.checks.find((c) => c.name === 'sessions_delivered')).toMatchObject({ ok: true });
  expect(r.validity.checks.find((c) => c.name === 'context_growth')).toMatchObject({ ok: true });
  // The reports show the turns beside the server's hit rate, and the result still loads as a result.
  const gate = compare(null, r, gateOf(r.spec));
  const report = renderConsoleReport(r, gate);
  expect(report).toMatch(/Sessions {4}\d+ conversations started \(load\.rate counts sessions\/s\)/);
  expect(report).toMatch(/^ {12}3 +\d+ +\d+ +[\d.]+ +[\d.]+ +168 +24\.0$/m);
  expect(renderMarkdown(gate, null, r)).toContain('#### Conversations by turn');
  expect(parseResult(JSON.stringify(r), 'result.json').workload.plan).toEqual(r.workload.plan);
}, 20_000);
