import { fileURLToPath } from 'node:url';
import { parseResult } from '../../src/result/load.js';
import { runBenchmark } from '../../src/run/run.js';
import { readSpec } from '../../src/spec/load.js';
import { applyOverrides } from '../../src/spec/override.js';
import { loadWorkloadInputs } from '../../src/workload/inputs.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));

test.each(['chat.yml', 'rag.yml', 'dataset.yml'])('examples/%s is a valid spec whose files load', (name) => {
  const r = readSpec(example(name), {});
  expect(r.spec.target.url).toBe('sim');
  expect(() => loadWorkloadInputs(r)).not.toThrow();
});

test('the examples say what they promise: chat 800 ± 300 in / 150 out, RAG 4,000 in / 500 out', () => {
  expect(readSpec(example('chat.yml'), {}).spec.workload).toMatchObject({
    input_tokens: { dist: 'lognormal', mean: 800, stddev: 300 },
    output_tokens: { dist: 'fixed', value: 150 },
  });
  expect(readSpec(example('rag.yml'), {}).spec.workload).toMatchObject({
    input_tokens: { dist: 'normal', mean: 4000 },
    output_tokens: { dist: 'fixed', value: 500 },
  });
});

/**
 * Each example runs against the simulator as written, with a shorter window: --warmup and
 * --duration as the CLI would apply them, and the cooldown skipped (only the test's clock needs it).
 */
describe.each([
  ['chat.yml', 800, 150],
  ['rag.yml', 4000, 500],
  ['dataset.yml', null, null],
])('examples/%s against the simulator', (name, input, output) => {
  test('delivers the workload it specifies', async () => {
    const resolved = { ...applyOverrides(readSpec(example(name), {}), { warmup: '0s', steady: '2s' }), cooldownMs: 0 };
    const r = await runBenchmark({ resolved });
    expect(r.requests.window.by_class.ok).toBe(r.requests.window.scheduled);
    expect(r.requests.window.scheduled).toBeGreaterThanOrEqual(2);
    const w = r.workload;
    expect(Math.abs(w.input_tokens.delivered!.mean / w.input_tokens.requested!.mean - 1)).toBeLessThan(0.05);
    expect(w.output_tokens.delivered!.mean).toBe(w.output_tokens.requested!.mean);
    expect(r.validity.checks.find((c) => c.name === 'workload_delivered')!.ok).toBe(true);
    // The workload section's new fields keep the result a valid result document.
    expect(parseResult(JSON.stringify(r), 'result.json').workload.plan).toEqual(w.plan);
    if (input !== null) {
      expect(Math.abs(w.input_tokens.spec!.mean / input - 1)).toBeLessThan(0.02);
      expect(w.output_tokens.spec!.mean).toBe(output);
      expect(w.plan!.calibration.method).toBe('tokenize');
    } else {
      expect(w.plan).toMatchObject({ source: 'dataset', dataset: { entries: 37, filtered_out: 0 } });
    }
  });
});
