import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runBenchmark } from '../../src/run/run.js';
import { readSpec } from '../../src/spec/load.js';
import { applyOverrides } from '../../src/spec/override.js';
import { loadWorkloadInputs } from '../../src/workload/inputs.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));

test.each(['chat-sessions.yml', 'trace-replay.yml'])('examples/%s is a valid spec whose files load, with its schema comment', (name) => {
  expect(readFileSync(example(name), 'utf8').split('\n')[0]).toBe('# yaml-language-server: $schema=../schema/spec.schema.json');
  const r = readSpec(example(name), {});
  expect(r.spec.target.url).toBe('sim');
  expect(() => loadWorkloadInputs(r)).not.toThrow();
});

test('examples/trace-replay.yml replays its sample against the simulator: every arrival sent, lengths delivered', async () => {
  const resolved = { ...applyOverrides(readSpec(example('trace-replay.yml'), {}), { warmup: '0s', steady: '3s' }), cooldownMs: 0 };
  const r = await runBenchmark({ resolved });
  const sample = loadWorkloadInputs(resolved).trace!.filter((e) => e.atMs < 3000);
  expect(r.requests.scheduled).toBe(sample.length);
  expect(r.requests.by_class.ok).toBe(sample.length);
  const w = r.workload;
  expect(Math.abs(w.input_tokens.delivered!.mean / w.input_tokens.requested!.mean - 1)).toBeLessThan(0.05);
  expect(w.output_tokens.delivered!.mean).toBe(w.output_tokens.requested!.mean);
  expect(w.plan).toMatchObject({ source: 'trace', trace: { replayed: 120, with_hash_ids: true } });
  // Shared blocks reach the simulator's prefix cache.
  expect(w.plan!.prefix.expected_cache_hit_ratio).toBeGreaterThan(0.05);
}, 20_000);
