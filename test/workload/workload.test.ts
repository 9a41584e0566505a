import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRng } from '../../src/rng.js';
import type { Calibration, WorkItem } from '../../src/workload/types.js';
import { readSpec, parseSpec } from '../../src/spec/load.js';
import { uncalibrated } from '../../src/workload/calibrate.js';
import { zipfProbabilities, zipfSampler } from '../../src/workload/prefix.js';
import { countWords } from '../../src/workload/prompts.js';
import { loadWorkloadInputs } from '../../src/workload/inputs.js';
import { createWorkload } from '../../src/workload/workload.js';
import { tempSpec } from '../spec/helpers.js';

const SALT = 123456;
const inputsOf = (workload: string, target = 'target: {url: sim}') =>
  loadWorkloadInputs(parseSpec(`${target}\nworkload: ${workload}`, 'x.yml', {}));
const generate = (workload: string, n: number, o: { calibration?: Calibration; salt?: number; target?: string } = {}): WorkItem[] => {
  const w = createWorkload(inputsOf(workload, o.target), o.calibration ?? uncalibrated(), o.salt ?? SALT);
  return Array.from({ length: n }, (_, i) => w.next(i));
};
const body = (item: WorkItem) => JSON.parse(item.body) as Record<string, unknown>;
const userWords = (item: WorkItem) => countWords(item.messages.at(-1)!.content);
const calibrated = (tokensPerWord: number, overhead: number, prefix = 0): Calibration => ({
  ...uncalibrated(),
  method: 'tokenize',
  source: 'test',
  tokens_per_word: tokensPerWord,
  overhead_tokens: overhead,
  prefix_tokens: prefix,
});

const W = '{seed: 3, input_tokens: {dist: uniform, min: 5, max: 50}, output_tokens: {dist: normal, mean: 30, stddev: 5}}';

describe('synthetic prompts', () => {
  test('the same seed, calibration and salt give the same requests', () => {
    expect(generate(W, 50)).toEqual(generate(W, 50));
  });

  test('another salt changes the text but not the lengths', () => {
    const [a, b] = [generate(W, 50), generate(W, 50, { salt: 99 })];
    expect(a.map((x) => [x.promptTokens, x.maxTokens])).toEqual(b.map((x) => [x.promptTokens, x.maxTokens]));
    expect(a[0].body).not.toBe(b[0].body);
  });

  test('uncalibrated (one token per word), prompts have exactly the requested words and unique first words', () => {
    const items = generate(W, 200);
    for (const item of items) expect(userWords(item)).toBe(item.promptTokens);
    expect(new Set(items.map((i) => i.messages[0].content.split(' ')[0])).size).toBe(200);
  });

  test('a calibration sizes prompts: words = (tokens − overhead) / tokens per word', () => {
    const items = generate('{input_tokens: 1000}', 5, { calibration: calibrated(1.25, 12) });
    for (const item of items) expect(userWords(item)).toBe(790);
    // Never below one word, however large the overhead.
    expect(userWords(generate('{input_tokens: 10}', 1, { calibration: calibrated(1, 50) })[0])).toBe(1);
  });

  test('input lengths, output lengths and prefix groups come from independent streams', () => {
    const base = generate(W, 20);
    const otherInput = generate(W.replace('{dist: uniform, min: 5, max: 50}', '7'), 20);
    expect(otherInput.map((i) => i.maxTokens)).toEqual(base.map((i) => i.maxTokens));
    const plain = '{seed: 3, input_tokens: 64, output_tokens: {dist: normal, mean: 30, stddev: 5}}';
    const grouped = generate(plain.replace('}}', '}, prefix_groups: {groups: 3, tokens: 4}}'), 20);
    expect(grouped.map((i) => i.maxTokens)).toEqual(generate(plain, 20).map((i) => i.maxTokens));
  });
});

describe('request bodies', () => {
  test('chat: one user message; output_control ignore_eos (the default) sets ignore_eos', () => {
    const b = body(generate('{input_tokens: 8, output_tokens: 16}', 1)[0]);
    expect(b).toMatchObject({
      model: 'loadgate-sim',
      max_tokens: 16,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(b.messages).toEqual([{ role: 'user', content: expect.any(String) }]);
    expect(b).not.toHaveProperty('min_tokens');
  });

  test('min_tokens asks for min_tokens = max_tokens; none asks for neither', () => {
    const min = body(generate('{output_tokens: 40, output_control: min_tokens}', 1)[0]);
    expect(min).toMatchObject({ max_tokens: 40, min_tokens: 40 });
    expect(min).not.toHaveProperty('ignore_eos');
    const none = body(generate('{output_tokens: 40, output_control: none}', 1)[0]);
    expect(none).not.toHaveProperty('ignore_eos');
    expect(none).not.toHaveProperty('min_tokens');
  });

  test('a shared prefix is one system message, identical in every request, before the unique user text', () => {
    const items = generate('{input_tokens: 100, prefix: {shared_tokens: 30}}', 20, { calibration: calibrated(1, 0, 30) });
    const systems = new Set(items.map((i) => i.messages[0].content));
    expect(systems.size).toBe(1);
    for (const item of items) {
      expect(body(item).messages).toEqual(item.messages);
      expect(item.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(countWords(item.messages[0].content)).toBe(30);
      expect(userWords(item)).toBe(70);
    }
  });

  test('completions: the messages as one prompt, one per line', () => {
    const [item] = generate('{input_tokens: 50, prefix: {shared_tokens: 20}}', 1, {
      target: 'target: {url: sim, api: completions}',
      calibration: calibrated(1, 0, 20),
    });
    const b = body(item);
    expect(b.prompt).toBe(`${item.messages[0].content}\n${item.messages[1].content}`);
    expect(countWords(b.prompt as string)).toBe(50);
    expect(b).not.toHaveProperty('messages');
  });
});

describe('prefix groups', () => {
  test('group popularity follows Zipf: P(g) ∝ (g + 1)^−s', () => {
    expect(zipfProbabilities(3, 0)).toEqual([1 / 3, 1 / 3, 1 / 3]);
    const p = zipfProbabilities(8, 1.1);
    const rng = createRng(1);
    const pick = zipfSampler(8, 1.1);
    const counts = new Array<number>(8).fill(0);
    const n = 50_000;
    for (let i = 0; i < n; i++) counts[pick(rng)]++;
    counts.forEach((c, g) => expect(Math.abs(c / n - p[g])).toBeLessThan(4 * Math.sqrt((p[g] * (1 - p[g])) / n)));
    expect(p[0] / p[1]).toBeCloseTo(2 ** 1.1, 10);
  });

  test('requests of a group share its prefix; groups differ; the shared prompt comes first', () => {
    const items = generate('{input_tokens: 200, prefix: {shared_tokens: 10}, prefix_groups: {groups: 4, tokens: 50, zipf_s: 1}}', 400, {
      calibration: calibrated(1, 0, 60),
    });
    const systems = items.map((i) => i.messages[0].content);
    expect(new Set(systems).size).toBe(4);
    const shared = new Set(systems.map((s) => s.split(' ').slice(0, 10).join(' ')));
    expect(shared.size).toBe(1);
    for (const item of items) expect(countWords(item.messages[0].content) + userWords(item)).toBe(200);
    // The most popular group is group 0: with s = 1 over 4 groups, P = 12/25.
    const counts = new Map<string, number>();
    for (const s of systems) counts.set(s, (counts.get(s) ?? 0) + 1);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
    expect(top[0]).toMatch(/ p\S+g0 /);
    expect(Math.abs(top[1] / 400 - 0.48)).toBeLessThan(0.1);
  });

  test('the plan names the prefix mode and the hit ratio an unbounded cache would get', () => {
    const w = createWorkload(inputsOf('{input_tokens: 100, prefix: {shared_tokens: 40}}'), calibrated(1, 0, 40), SALT);
    for (let i = 0; i < 10; i++) w.next(i);
    // Every request but the first finds the 40 shared tokens cached: 9 × 40 / (10 × 100).
    expect(w.describe().plan.prefix).toEqual({ mode: 'shared', expected_cache_hit_ratio: 0.36 });
    const unique = createWorkload(inputsOf('{input_tokens: 100}'), uncalibrated(), SALT);
    for (let i = 0; i < 10; i++) unique.next(i);
    expect(unique.describe().plan.prefix).toEqual({ mode: 'unique', expected_cache_hit_ratio: 0 });
  });
});

describe('the spec side of the result', () => {
  test('synthetic distributions are summarized from seeded draws', () => {
    const { inputSpec, outputSpec, plan } = createWorkload(
      inputsOf('{input_tokens: {dist: lognormal, mean: 800, stddev: 300}, output_tokens: 150}'),
      uncalibrated(),
      SALT,
    ).describe();
    expect(Math.abs(inputSpec!.mean / 800 - 1)).toBeLessThan(0.02);
    expect(inputSpec!.p50).toBeLessThan(inputSpec!.mean);
    expect(outputSpec).toMatchObject({ mean: 150, p50: 150, p99: 150 });
    expect(plan).toMatchObject({ source: 'synthetic', output_control: 'ignore_eos', dataset: null, files: {}, salt: SALT });
  });
});

describe('datasets', () => {
  const EXAMPLE = fileURLToPath(new URL('../../examples/dataset.yml', import.meta.url));

  test('entries are used once each before any repeats; their max_tokens is the output length, else output_tokens', () => {
    const inputs = loadWorkloadInputs(readSpec(EXAMPLE, {}));
    const entries = inputs.dataset!.entries;
    const w = createWorkload(inputs, uncalibrated(), SALT);
    const items = Array.from({ length: entries.length }, (_, i) => w.next(i));
    expect(new Set(items.map((i) => i.body)).size).toBe(entries.length);
    for (const item of items) {
      const entry = entries.find((e) => JSON.stringify(e.messages) === JSON.stringify(item.messages))!;
      expect(item.promptTokens).toBe(entry.words);
      if (entry.maxTokens) expect(item.maxTokens).toBe(entry.maxTokens);
      else expect([16, 32, 64, 128, 192, 256, 384, 512, 768, 1024]).toContain(item.maxTokens);
    }
    const { plan } = w.describe();
    expect(plan).toMatchObject({
      source: 'dataset',
      prefix: { mode: 'dataset', expected_cache_hit_ratio: 0 },
      dataset: { entries: 37, used_entries: 37, skipped: 0, filtered_out: 0 },
    });
    expect(Object.keys(plan.files).sort()).toEqual(['data/chat-sample.jsonl', 'data/output-lengths.csv']);
    // A second pass reuses entries: an unbounded prefix cache would hold those prompts.
    for (let i = 0; i < entries.length; i++) w.next(i);
    expect(w.describe().plan.prefix.expected_cache_hit_ratio).toBe(0.5);
  });

  test('calibrated token estimates drive the filter and a ShareGPT reply length becomes max_tokens', () => {
    const dir = fileURLToPath(new URL('../../examples/', import.meta.url));
    const inputs = loadWorkloadInputs({
      ...parseSpec(
        'target: {url: sim}\nworkload: {dataset: {path: data/sharegpt-sample.json, format: sharegpt, filter: {max_output_tokens: 150}}}',
        'x.yml',
        {},
      ),
      specDir: dir,
    });
    const w = createWorkload(inputs, calibrated(1.3, 5), SALT);
    const kept = inputs.dataset!.entries.filter((e) => Math.round(1.3 * e.answerWords!) <= 150);
    const items = Array.from({ length: kept.length }, (_, i) => w.next(i));
    for (const item of items) {
      const entry = kept.find((e) => e.messages[0].content === item.messages[0].content)!;
      expect(item.promptTokens).toBe(Math.round(5 + 1.3 * entry.words));
      expect(item.maxTokens).toBe(Math.round(1.3 * entry.answerWords!));
    }
    expect(w.describe().plan.dataset).toMatchObject({ entries: 8, filtered_out: 8 - kept.length });
  });

  test('file problems are one line naming the file', () => {
    const spec = tempSpec('target: {url: sim}\nworkload: {dataset: {path: d.jsonl, format: jsonl, filter: {min_input_tokens: 1000}}}');
    const resolved = readSpec(spec, {});
    expect(() => loadWorkloadInputs(resolved)).toThrow(
      `workload.dataset.path "d.jsonl" (${join(dirname(spec), 'd.jsonl')}): file not found; expected a readable regular file, the path relative to the spec file`,
    );
    writeFileSync(join(dirname(spec), 'd.jsonl'), `${JSON.stringify({ prompt: 'a short prompt' })}\n{"prompt": 3}\n`);
    expect(() => loadWorkloadInputs(resolved)).toThrow('d.jsonl:2: missing "prompt" or "messages"; expected');
    writeFileSync(join(dirname(spec), 'd.jsonl'), `${JSON.stringify({ prompt: 'a short prompt' })}\n`);
    expect(() => createWorkload(loadWorkloadInputs(resolved), uncalibrated(), SALT)).toThrow(
      'd.jsonl: no entry passes workload.dataset.filter (1 entries, estimated input 3–3 tokens); expected a filter that keeps at least one',
    );
  });

  test('an empirical length file is read relative to the spec', () => {
    const spec = tempSpec('target: {url: sim}\nworkload: {output_tokens: {dist: empirical, file: lengths/out.txt}}');
    mkdirSync(join(dirname(spec), 'lengths'));
    writeFileSync(join(dirname(spec), 'lengths', 'out.txt'), '10\n20\n');
    const inputs = loadWorkloadInputs(readSpec(spec, {}));
    expect(inputs.output).toEqual({ dist: 'empirical', values: [10, 20], weights: [1, 1] });
    expect(inputs.files['lengths/out.txt']).toMatch(/^[0-9a-f]{64}$/);
  });
});
