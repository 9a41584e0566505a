/**
 * The spec loader over thousands of generated inputs — arbitrary text, arbitrary YAML
 * values under the real keys, and mutations of a valid spec — answers with a resolved spec or
 * one SpecError line naming the source, never another exception, a stack trace or a hang.
 * Seeded: a failure prints its seed and shrunk input, and reruns the same.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { parseSpec, SpecError } from '../../src/spec/load.js';
import { cpuMs } from '../fixtures/cpu-time.js';

const SEED = 16_11;
/** CPU time (cpuMs) for any one input: a spec is small, so far less than this; a hang shows here, not as a stuck run. */
const PER_INPUT_MS = 500;

function loadOrOneLine(text: string): void {
  const t0 = cpuMs();
  try {
    const r = parseSpec(text, 'fuzz.yml', { KEY: 'k' });
    expect(typeof r.hash).toBe('string');
  } catch (err) {
    if (!(err instanceof SpecError)) throw new Error(`not a SpecError: ${String(err)} (${(err as Error).stack})`, { cause: err });
    expect(err.message).not.toMatch(/\n/);
    expect(err.message.startsWith('fuzz.yml')).toBe(true);
    expect(err.message.length).toBeLessThan(2000);
  }
  expect(cpuMs() - t0).toBeLessThan(PER_INPUT_MS);
}

const VALID = `name: fuzz
target: {url: "http://127.0.0.1:8000/v1", model: m, api_key_env: KEY, headers: {x-a: "\${KEY}"}}
workload: {seed: 3, input_tokens: {dist: normal, mean: 100, stddev: 10, min: 1, max: 400}, output_tokens: 16}
load: {mode: open, arrival: gamma, burstiness: 0.5, rate: 5, warmup: 1s, steady: 10s, cooldown: 0s}
slo: {ttft_ms: 500, tpot_ms: 50, e2e_ms: 10000}
gate: {confidence: 0.9, latency: {ttft_p95: {max_increase_pct: 10}}}
`;

/** Values a YAML document can hold, leaning towards the kinds a spec expects (numbers, short strings, durations). */
const leaf = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    'sim',
    '30s',
    '0s',
    '1e12',
    'http://h/v1',
    'http://u:p@h/v1',
    'fixed',
    'uniform',
    'empirical',
    'open',
    'closed',
    '${KEY}',
    '${NOPE}',
  ),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('v'), { maxKeys: 4 }),
  ),
})).v;
const KEYS = {
  '': ['name', 'target', 'workload', 'load', 'slo', 'gate', 'extra'],
  target: ['url', 'api', 'model', 'headers', 'api_key_env', 'request_timeout', 'ready_timeout', 'sim'],
  workload: ['seed', 'input_tokens', 'output_tokens', 'output_control', 'ignore_eos', 'calibrate', 'prefix', 'prefix_groups', 'dataset'],
  load: ['mode', 'arrival', 'burstiness', 'rate', 'concurrency', 'warmup', 'steady', 'cooldown', 'max_in_flight', 'replicates'],
  slo: ['ttft_ms', 'tpot_ms', 'e2e_ms'],
  gate: ['latency', 'throughput', 'error_rate', 'slo', 'confidence', 'validity'],
};
const section = (keys: string[]) => fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: keys.length });
const specLike = fc.record(
  {
    name: value,
    target: fc.oneof(section(KEYS.target), fc.constant({ url: 'sim' }), value),
    workload: section(KEYS.workload),
    load: section(KEYS.load),
    slo: section(KEYS.slo),
    gate: section(KEYS.gate),
  },
  { requiredKeys: [] },
);

describe('the spec loader never throws anything but one SpecError line, and never hangs', () => {
  // The schema compiles on its first use: before the clock, so each input's bound times that input alone.
  beforeAll(() => parseSpec(VALID, 'fuzz.yml', { KEY: 'k' }));

  test('arbitrary text (unicode, control characters, YAML punctuation)', () => {
    const yamlish = fc
      .array(
        fc.constantFrom(
          ':',
          '-',
          '{',
          '}',
          '[',
          ']',
          '&a',
          '*a',
          '!!',
          '|',
          '>',
          '#',
          '"',
          "'",
          '\n',
          '  ',
          'target',
          'url',
          'sim',
          '%YAML 1.2',
          '---',
          '\t',
          '\0',
        ),
        { maxLength: 60 },
      )
      .map((parts) => parts.join(''));
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), yamlish), loadOrOneLine), { seed: SEED, numRuns: 3000 });
  });

  test('arbitrary values under the real keys', () => {
    fc.assert(
      fc.property(specLike, (doc) => loadOrOneLine(stringify(doc))),
      { seed: SEED, numRuns: 800 },
    );
  });

  test('a valid spec with random edits (deleted, inserted and replaced characters, truncations)', () => {
    expect(() => parseSpec(VALID, 'fuzz.yml', { KEY: 'k' })).not.toThrow();
    const edit = fc.tuple(fc.nat({ max: VALID.length }), fc.nat({ max: 8 }), fc.string({ unit: 'binary', maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        let text = VALID;
        for (const [at, del, ins] of edits) text = text.slice(0, at) + ins + text.slice(at + del);
        loadOrOneLine(text);
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  test('alias bombs and deep nesting end in one line too', () => {
    const bomb = `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ntarget: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n`;
    loadOrOneLine(bomb);
    loadOrOneLine(`target: ${'['.repeat(5000)}${']'.repeat(5000)}\n`);
    loadOrOneLine(`target: ${'{a: '.repeat(2000)}1${'}'.repeat(2000)}\n`);
  });
});
