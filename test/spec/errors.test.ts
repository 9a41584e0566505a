import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSpec, parseSpec } from '../../src/spec/load.js';
import { messageOf, tempSpec } from './helpers.js';

const SECRET = 'sk-do-not-print';
const ENV = { SET_KEY: SECRET, EMPTY_KEY: '' };
const SIM = 'target: {url: sim}\n';

/** Spec text → the exact one-line message it must produce. */
const CASES: Array<[string, string, string]> = [
  ['wrong type', `${SIM}workload: {seed: abc}`, 'bench.yml: workload.seed is "abc"; expected an integer'],
  ['non-integer seed', `${SIM}workload: {seed: 1.5}`, 'bench.yml: workload.seed is 1.5; expected an integer'],
  ['string for a boolean', `${SIM}workload: {ignore_eos: "yes"}`, 'bench.yml: workload.ignore_eos is "yes"; expected true or false'],
  ['section not a mapping', 'target: sim', 'bench.yml: target is "sim"; expected a mapping with at least url'],
  ['empty section', `${SIM}load:`, 'bench.yml: load is empty; expected a mapping'],
  ['unknown key', `${SIM}load: {ratee: 5}`, 'bench.yml: load.ratee is not a known key; did you mean "rate"?'],
  ['unknown key, prefix of a known one', `${SIM}slo: {tpot: 40}`, 'bench.yml: slo.tpot is not a known key; did you mean "tpot_ms"?'],
  [
    'unknown key, nothing close',
    `${SIM}slo: {latency: 40}`,
    'bench.yml: slo.latency is not a known key; expected one of ttft_ms, tpot_ms, e2e_ms',
  ],
  [
    'unknown generator limit',
    `${SIM}gate: {validity: {max_schedule_lag_ms: 10}}`,
    'bench.yml: gate.validity.max_schedule_lag_ms is not a known key; did you mean "max_schedule_lag_p99_ms"?',
  ],
  ['unknown section', `${SIM}lod: {rate: 5}`, 'bench.yml: lod is not a known key; did you mean "load"?'],
  ['negative rate', `${SIM}load: {rate: -5}`, 'bench.yml: load.rate is -5; expected a number > 0'],
  ['zero rate', `${SIM}load: {rate: 0}`, 'bench.yml: load.rate is 0; expected a number > 0'],
  ['zero burstiness', `${SIM}load: {burstiness: 0}`, 'bench.yml: load.burstiness is 0; expected a number > 0'],
  [
    'closed mode, concurrency 0',
    `${SIM}load: {mode: closed, concurrency: 0}`,
    'bench.yml: load.concurrency is 0; expected an integer from 1 to 10,000',
  ],
  ['max_in_flight 0', `${SIM}load: {max_in_flight: 0}`, 'bench.yml: load.max_in_flight is 0; expected an integer from 1 to 100,000'],
  [
    'closed-loop concurrency above the in-flight cap',
    `${SIM}load: {mode: closed, concurrency: 5000, max_in_flight: 1000}`,
    'bench.yml: load.concurrency is 5,000, above load.max_in_flight (1,000); expected at most load.max_in_flight requests in flight, or a higher max_in_flight',
  ],
  [
    'a concurrency sweep above the in-flight cap',
    `${SIM}load: {max_in_flight: 100}\nsweep: {concurrency: [1, 50, 200]}`,
    'bench.yml: sweep.concurrency reaches 200, above load.max_in_flight (100); expected at most load.max_in_flight requests in flight, or a higher max_in_flight',
  ],
  [
    'concurrency 1000000',
    `${SIM}load: {mode: closed, concurrency: 1000000}`,
    'bench.yml: load.concurrency is 1000000; expected an integer from 1 to 10,000',
  ],
  [
    'input_tokens 100000000',
    `${SIM}workload: {input_tokens: 100000000}`,
    'bench.yml: workload.input_tokens.value is 100000000; expected a positive integer of at most 2,000,000 tokens',
  ],
  [
    'a lognormal mean of 1e12 tokens',
    `${SIM}workload: {output_tokens: {dist: lognormal, mean: 1e12, stddev: 1}}`,
    'bench.yml: workload.output_tokens.mean is 1000000000000; expected a number > 0 and at most 2,000,000 tokens',
  ],
  [
    'max_event_bytes below its range',
    `${SIM}load: {max_event_bytes: 10}`,
    'bench.yml: load.max_event_bytes is 10; expected a number of bytes from 1,024 to 67,108,864 (the longest SSE line or event a server may send)',
  ],
  ['bad mode', `${SIM}load: {mode: half}`, 'bench.yml: load.mode is "half"; expected one of open, closed'],
  ['bad arrival', `${SIM}load: {arrival: bursty}`, 'bench.yml: load.arrival is "bursty"; expected one of poisson, constant, gamma'],
  [
    'unparseable duration',
    `${SIM}load: {steady: 30 seconds}`,
    'bench.yml: load.steady "30 seconds" is not a duration; expected e.g. 500ms, 30s, 5m, 1m30s',
  ],
  [
    'duration without a unit',
    `${SIM}load: {warmup: 30}`,
    'bench.yml: load.warmup is 30; expected a duration such as 500ms, 30s, 5m, 1m30s',
  ],
  ['zero steady window', `${SIM}load: {steady: 0s}`, 'bench.yml: load.steady is "0s"; expected a duration > 0'],
  [
    'zero request timeout',
    'target: {url: sim, request_timeout: 0ms}',
    'bench.yml: target.request_timeout is "0ms"; expected a duration > 0',
  ],
  [
    'missing env var for the key',
    'target: {url: sim, api_key_env: LOADGATE_KEY}',
    'bench.yml: target.api_key_env names LOADGATE_KEY, which is not set in the environment; export it or remove api_key_env',
  ],
  [
    'empty env var for the key',
    'target: {url: sim, api_key_env: EMPTY_KEY}',
    'bench.yml: target.api_key_env names EMPTY_KEY, which is set but empty; export the key or remove api_key_env',
  ],
  [
    'api_key_env that is not a variable name',
    'target: {url: sim, api_key_env: "$KEY"}',
    'bench.yml: target.api_key_env is "$KEY"; expected the name of an environment variable, e.g. OPENAI_API_KEY',
  ],
  [
    'bad URL',
    'target: {url: "htp:/x", model: m}',
    'bench.yml: target.url "htp:/x" is not a URL; expected http(s)://host[:port]/v1 or "sim"',
  ],
  [
    'URL without a scheme',
    'target: {url: "localhost:8000/v1", model: m}',
    'bench.yml: target.url "localhost:8000/v1" is not a URL; expected http(s)://host[:port]/v1 or "sim"',
  ],
  [
    'non-http URL',
    'target: {url: "ftp://host/v1", model: m}',
    'bench.yml: target.url "ftp://host/v1" is not an http(s) URL; expected http(s)://host[:port]/v1 or "sim"',
  ],
  ['missing URL', 'target: {model: m}', 'bench.yml: target.url is missing; expected http(s)://host[:port]/v1 or "sim"'],
  ['missing target', 'name: x', 'bench.yml: target is missing; expected a mapping with at least url'],
  // A password in the URL would be written into the result and every report.
  [
    'credentials in the URL',
    'target: {url: "http://admin:pw@host/v1", model: m}',
    'bench.yml: target.url contains user:password@ credentials (for host host); expected a URL without them: put the key in an environment variable and name it in target.api_key_env',
  ],
  // What validate passes, run must be able to do.
  [
    'a schedule too large to hold',
    'target: {url: sim}\nload: {rate: 1e12}',
    'bench.yml: load.rate is 1000000000000 req/s over 37 s of warmup, steady and cooldown: 37,000,000,000,000 scheduled requests; expected at most 10,000,000 per run (lower the rate or shorten the run, or split it with --shard K/N)',
  ],
  [
    'a steady window of a million hours',
    'target: {url: sim}\nload: {steady: 1000000h}',
    'bench.yml: load.steady is "1000000h"; expected a duration of at most 24h',
  ],
  [
    'a name too long',
    `target: {url: sim}\nname: ${'x'.repeat(300)}`,
    'bench.yml: name is 300 characters long; expected at most 256 characters',
  ],
  ['bad api enum', 'target: {url: sim, api: chatt}', 'bench.yml: target.api is "chatt"; expected one of chat, completions'],
  [
    'header value not a string',
    'target: {url: sim, headers: {X-Shard: 3}}',
    'bench.yml: target.headers.X-Shard is 3; expected a string (quote numbers)',
  ],
  [
    'unknown distribution',
    `${SIM}workload: {input_tokens: {dist: poison}}`,
    'bench.yml: workload.input_tokens.dist is "poison"; expected one of fixed, uniform, normal, lognormal, empirical',
  ],
  [
    'distribution without dist',
    `${SIM}workload: {input_tokens: {value: 5}}`,
    'bench.yml: workload.input_tokens.dist is missing; expected one of fixed, uniform, normal, lognormal, empirical',
  ],
  [
    'uniform min > max',
    `${SIM}workload: {output_tokens: {dist: uniform, min: 200, max: 100}}`,
    'bench.yml: workload.output_tokens has min 200 > max 100; expected min ≤ max',
  ],
  [
    'normal min > max',
    `${SIM}workload: {output_tokens: {dist: normal, mean: 100, stddev: 5, min: 90, max: 10}}`,
    'bench.yml: workload.output_tokens has min 90 > max 10; expected min ≤ max',
  ],
  [
    'uniform without max',
    `${SIM}workload: {input_tokens: {dist: uniform, min: 5}}`,
    'bench.yml: workload.input_tokens.max is missing; expected a positive integer',
  ],
  [
    'key of another distribution',
    `${SIM}workload: {input_tokens: {dist: fixed, value: 5, max: 9}}`,
    'bench.yml: workload.input_tokens.max is not a known key; expected one of dist, value',
  ],
  [
    'non-integer tokens',
    `${SIM}workload: {input_tokens: {dist: fixed, value: 12.5}}`,
    'bench.yml: workload.input_tokens.value is 12.5; expected a positive integer of at most 2,000,000 tokens',
  ],
  [
    'non-integer shorthand',
    `${SIM}workload: {output_tokens: 12.5}`,
    'bench.yml: workload.output_tokens is 12.5; expected a positive integer or a mapping with dist: fixed, uniform, normal, lognormal, empirical',
  ],
  [
    'zero shorthand',
    `${SIM}workload: {output_tokens: 0}`,
    'bench.yml: workload.output_tokens is 0; expected a positive integer or a mapping with dist: fixed, uniform, normal, lognormal, empirical',
  ],
  [
    'uniform with both forms',
    `${SIM}workload: {input_tokens: {dist: uniform, min: 5, max: 9, mean: 7, range_ratio: 0.2}}`,
    'bench.yml: workload.input_tokens has both min/max and mean/range_ratio; expected min and max, or mean and range_ratio',
  ],
  [
    'uniform with neither form',
    `${SIM}workload: {input_tokens: {dist: uniform}}`,
    'bench.yml: workload.input_tokens has neither min/max nor mean/range_ratio; expected min and max, or mean and range_ratio',
  ],
  [
    'uniform mean without range_ratio',
    `${SIM}workload: {input_tokens: {dist: uniform, mean: 1000}}`,
    'bench.yml: workload.input_tokens.range_ratio is missing; expected a number ≥ 0 and < 1',
  ],
  [
    'range_ratio of 1',
    `${SIM}workload: {input_tokens: {dist: uniform, mean: 1000, range_ratio: 1}}`,
    'bench.yml: workload.input_tokens.range_ratio is 1; expected a number ≥ 0 and < 1',
  ],
  [
    'lognormal without stddev',
    `${SIM}workload: {input_tokens: {dist: lognormal, mean: 800}}`,
    'bench.yml: workload.input_tokens.stddev is missing; expected a number ≥ 0',
  ],
  [
    'lognormal min > max',
    `${SIM}workload: {input_tokens: {dist: lognormal, mean: 800, stddev: 300, min: 900, max: 100}}`,
    'bench.yml: workload.input_tokens has min 900 > max 100; expected min ≤ max',
  ],
  [
    'empirical with neither values nor file',
    `${SIM}workload: {output_tokens: {dist: empirical}}`,
    'bench.yml: workload.output_tokens has neither values nor file; expected one of them',
  ],
  [
    'empirical with values and file',
    `${SIM}workload: {output_tokens: {dist: empirical, values: [1], file: x.csv}}`,
    'bench.yml: workload.output_tokens has both values and file; expected one of them',
  ],
  [
    'empirical values not integers',
    `${SIM}workload: {output_tokens: {dist: empirical, values: [10, 2.5]}}`,
    'bench.yml: workload.output_tokens.values.1 is 2.5; expected a positive integer of at most 2,000,000 tokens',
  ],
  [
    'empirical empty values',
    `${SIM}workload: {output_tokens: {dist: empirical, values: []}}`,
    'bench.yml: workload.output_tokens.values is a list; expected a non-empty list of positive integers of at most 2,000,000',
  ],
  [
    'empirical weights of the wrong length',
    `${SIM}workload: {output_tokens: {dist: empirical, values: [10, 20], weights: [1]}}`,
    'bench.yml: workload.output_tokens.weights has 1 entries for 2 values; expected one weight per value',
  ],
  [
    'empirical weights all zero',
    `${SIM}workload: {output_tokens: {dist: empirical, values: [10, 20], weights: [0, 0]}}`,
    'bench.yml: workload.output_tokens.weights are all 0; expected at least one weight > 0',
  ],
  [
    'empirical weights beside a file',
    `${SIM}workload: {output_tokens: {dist: empirical, file: lengths.csv, weights: [1]}}`,
    'bench.yml: workload.output_tokens.weights is given with file; expected weights only beside values (a file holds its own counts)',
  ],
  [
    'bad output_control',
    `${SIM}workload: {output_control: eos}`,
    'bench.yml: workload.output_control is "eos"; expected one of ignore_eos, min_tokens, none',
  ],
  [
    'ignore_eos beside output_control',
    `${SIM}workload: {ignore_eos: true, output_control: min_tokens}`,
    'bench.yml: workload.ignore_eos is given with output_control; expected only output_control (ignore_eos: true is output_control: ignore_eos)',
  ],
  [
    'bad calibrate',
    `${SIM}workload: {calibrate: yes}`,
    'bench.yml: workload.calibrate is "yes"; expected one of auto, tokenize, probe, off',
  ],
  [
    'prefix without shared_tokens',
    `${SIM}workload: {prefix: {tokens: 10}}`,
    'bench.yml: workload.prefix.shared_tokens is missing; expected a positive integer of at most 2,000,000 tokens',
  ],
  [
    'zero shared tokens',
    `${SIM}workload: {prefix: {shared_tokens: 0}}`,
    'bench.yml: workload.prefix.shared_tokens is 0; expected a positive integer of at most 2,000,000 tokens',
  ],
  [
    'prefix groups without tokens',
    `${SIM}workload: {prefix_groups: {groups: 4}}`,
    'bench.yml: workload.prefix_groups.tokens is missing; expected a positive integer of at most 2,000,000 tokens',
  ],
  [
    'negative zipf_s',
    `${SIM}workload: {prefix_groups: {groups: 4, tokens: 8, zipf_s: -1}}`,
    'bench.yml: workload.prefix_groups.zipf_s is -1; expected a number ≥ 0 (0: every group equally popular)',
  ],
  [
    'a prefix as long as the input',
    `${SIM}workload: {input_tokens: 128, prefix: {shared_tokens: 100}, prefix_groups: {groups: 2, tokens: 28}}`,
    'bench.yml: workload.prefix makes 128 prefix tokens, not fewer than the mean input length (128); expected a prefix shorter than input_tokens, which includes it',
  ],
  [
    'dataset without format',
    `${SIM}workload: {dataset: {path: d.jsonl}}`,
    'bench.yml: workload.dataset.format is missing; expected one of sharegpt, jsonl',
  ],
  [
    'dataset of an unknown format',
    `${SIM}workload: {dataset: {path: d.jsonl, format: csv}}`,
    'bench.yml: workload.dataset.format is "csv"; expected one of sharegpt, jsonl',
  ],
  [
    'dataset with a bad sample mode',
    `${SIM}workload: {dataset: {path: d.jsonl, format: jsonl, sample: random}}`,
    'bench.yml: workload.dataset.sample is "random"; expected one of without_replacement, with_replacement',
  ],
  [
    'dataset filter with an unknown key',
    `${SIM}workload: {dataset: {path: d.jsonl, format: jsonl, filter: {max_input: 10}}}`,
    'bench.yml: workload.dataset.filter.max_input is not a known key; did you mean "max_input_tokens"?',
  ],
  [
    'dataset beside input_tokens',
    `${SIM}workload: {input_tokens: 100, dataset: {path: d.jsonl, format: jsonl}}`,
    'bench.yml: workload.input_tokens is given with dataset; expected one or the other (a dataset brings its own prompts)',
  ],
  [
    'dataset beside a prefix',
    `${SIM}workload: {dataset: {path: d.jsonl, format: jsonl}, prefix: {shared_tokens: 10}}`,
    'bench.yml: workload.prefix is given with dataset; expected one or the other (a dataset brings its own prompts)',
  ],
  ['negative SLO', `${SIM}slo: {ttft_ms: -1}`, 'bench.yml: slo.ttft_ms is -1; expected a number of milliseconds > 0'],
  ['empty name', `name: ""\n${SIM}`, 'bench.yml: name is ""; expected a non-empty string'],
  [
    'top-level list',
    '- target: {url: sim}',
    'bench.yml: top level is a list; expected a mapping with keys name, target, workload, load, slo, gate, sweep, sizing',
  ],
  [
    'top-level scalar',
    'hello',
    'bench.yml: top level is "hello"; expected a mapping with keys name, target, workload, load, slo, gate, sweep, sizing',
  ],
  ['empty file', '', 'bench.yml: the file is empty; expected a YAML mapping with at least target.url'],
  ['comments only', '# nothing yet\n', 'bench.yml: the file is empty; expected a YAML mapping with at least target.url'],
  [
    'YAML syntax error',
    'target:\n  url: sim\nload: {rate: 5\n',
    'bench.yml:4:1: YAML syntax error: Flow map in block collection must be sufficiently indented and end with a }',
  ],
  ['duplicate key', 'target: {url: sim}\nload: {}\nload: {}\n', 'bench.yml:3:1: YAML syntax error: Map keys must be unique'],
  ['alias to no anchor', 'target: *t\n', 'bench.yml: YAML error: Unresolved alias (the anchor must be set before the alias): t'],
  [
    'the first problem in document order wins',
    'load: {rate: -1}\ntarget: {url: sim, api: x}\nworkload: {seed: x}',
    'bench.yml: load.rate is -1; expected a number > 0',
  ],
];

describe.each(CASES)('%s', (_label, text, expected) => {
  test('is one exact line', () => {
    const message = messageOf(() => parseSpec(text, 'bench.yml', ENV));
    expect(message).toBe(expected);
    expect(message).not.toMatch(/\n|\s at /);
  });
});

test('the API key never appears in a message', () => {
  const message = messageOf(() => parseSpec('target: {url: sim, api_key_env: SET_KEY}\nload: {rate: x}', 'bench.yml', ENV));
  expect(message).toBe('bench.yml: load.rate is "x"; expected a number > 0');
  expect(message).not.toContain(SECRET);
});

describe('file problems', () => {
  test('a missing file', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'loadgate-spec-')), 'nope.yml');
    expect(messageOf(() => readSpec(path, {}))).toBe(`${path}: file not found; expected a readable YAML spec file`);
  });

  test('a directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loadgate-spec-'));
    expect(messageOf(() => readSpec(dir, {}))).toBe(`${dir}: is a directory; expected a readable YAML spec file`);
  });

  test('an empty file', () => {
    const path = tempSpec('');
    expect(messageOf(() => readSpec(path, {}))).toBe(`${path}: the file is empty; expected a YAML mapping with at least target.url`);
  });

  test('a YAML syntax error reports the line and column', () => {
    const path = tempSpec('target:\n  url: sim\nload:\n  rate: 5\n   steady: 30s\n');
    expect(messageOf(() => readSpec(path, {}))).toBe(`${path}:4:9: YAML syntax error: Nested mappings are not allowed in compact mappings`);
  });

  // Root reads every file whatever its mode, so the check only means something for other users.
  const asRoot = process.getuid?.() === 0;
  (asRoot ? test.skip : test)('an unreadable file', () => {
    const path = tempSpec(SIM);
    chmodSync(path, 0o000);
    expect(messageOf(() => readSpec(path, {}))).toBe(
      `${path}: file is not readable (permission denied); expected a readable YAML spec file`,
    );
  });
});

// The run-size bound with a rate curve: it counts the pattern's peak, not only load.rate.
test('a spike whose peak schedules more than the stated maximum is refused naming load.pattern', () => {
  const text = 'target: {url: sim}\nload: {rate: 100000, steady: 60s, pattern: { kind: spike, multiplier: 3, at: 10s, for: 5s }}\n';
  expect(() => parseSpec(text, 'bench.yml', {})).toThrow(
    'bench.yml: load.pattern peaks at 300,000 req/s over 67 s of warmup, steady and cooldown: 20,100,000 scheduled requests; expected at most 10,000,000 per run (lower the rate or shorten the run, or split it with --shard K/N)',
  );
  expect(() => parseSpec(text.replace('multiplier: 3', 'multiplier: 1.2'), 'bench.yml', {})).not.toThrow();
});
