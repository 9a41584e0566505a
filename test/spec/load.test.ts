import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultGate, resolveGate } from '../../src/spec/gate-schema.js';
import { readSpec, parseSpec, SpecError } from '../../src/spec/load.js';
import { tempSpec } from './helpers.js';

const FULL = fileURLToPath(new URL('./fixtures/full.yml', import.meta.url));
const ENV = { LOADGATE_TEST_KEY: 'sk-test-secret' };

describe('readSpec', () => {
  test('a full spec loads as written, durations in ms, key from the environment', () => {
    const r = readSpec(FULL, ENV);
    expect(r.spec).toEqual({
      name: 'pr-gate',
      target: {
        url: 'http://localhost:8000/v1',
        api: 'completions',
        model: 'meta-llama/Llama-3.1-8B-Instruct',
        headers: { 'X-Team': 'inference' },
        api_key_env: 'LOADGATE_TEST_KEY',
        request_timeout: '2m',
        ready_timeout: '1m30s',
        sim: { slots: 4 },
      },
      workload: {
        seed: 42,
        input_tokens: { dist: 'uniform', min: 64, max: 512 },
        output_tokens: { dist: 'normal', mean: 200, stddev: 40, min: 16, max: 400 },
        output_control: 'min_tokens',
        calibrate: 'probe',
        prefix: { shared_tokens: 32 },
        prefix_groups: { groups: 8, tokens: 16, zipf_s: 1.2 },
      },
      load: {
        mode: 'closed',
        arrival: 'gamma',
        burstiness: 0.5,
        rate: 25.5,
        concurrency: 32,
        warmup: '0s',
        steady: '1.5s',
        cooldown: '500ms',
        max_in_flight: 2000,
        replicates: 1,
      },
      slo: { ttft_ms: 250, tpot_ms: 30.5, e2e_ms: 8000 },
      gate: resolveGate(undefined, { ttft_ms: 250 }),
    });
    expect(r.apiKey).toBe('sk-test-secret');
    expect(r).toMatchObject({
      requestTimeoutMs: 120_000,
      readyTimeoutMs: 90_000,
      warmupMs: 0,
      steadyMs: 1_500,
      cooldownMs: 500,
    });
    expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.specDir).toBe(dirname(FULL));
  });

  test('a minimal spec gets every default', () => {
    const r = readSpec(tempSpec('target: {url: sim}\n'), {});
    expect(r).toEqual({
      spec: {
        name: 'benchmark',
        target: {
          url: 'sim',
          api: 'chat',
          model: 'loadgate-sim',
          headers: {},
          request_timeout: '60s',
          ready_timeout: '60s',
          sim: {},
        },
        workload: {
          seed: 1,
          input_tokens: { dist: 'fixed', value: 128 },
          output_tokens: { dist: 'fixed', value: 128 },
          output_control: 'ignore_eos',
          calibrate: 'auto',
        },
        load: {
          mode: 'open',
          arrival: 'poisson',
          burstiness: 1,
          rate: 10,
          concurrency: 8,
          warmup: '5s',
          steady: '30s',
          cooldown: '2s',
          max_in_flight: 10000,
          replicates: 1,
        },
        slo: { ttft_ms: 500, tpot_ms: 50, e2e_ms: 10000 },
        gate: defaultGate(),
      },
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      headers: {},
      specDir: expect.stringMatching(/loadgate-spec-/),
      requestTimeoutMs: 60_000,
      readyTimeoutMs: 60_000,
      warmupMs: 5_000,
      steadyMs: 30_000,
      cooldownMs: 2_000,
      metricsIntervalMs: 1_000,
    });
    expect(r).not.toHaveProperty('apiKey');
  });

  test('the server view settings: an interval, a URL on the target host or an allowed one, or false', () => {
    const target = (extra: string) => parseSpec(`target: {url: "http://10.0.0.5:8000/v1", model: m, ${extra}}`, 'x.yml', {});
    expect(target('metrics_interval: 250ms').metricsIntervalMs).toBe(250);
    expect(target('metrics_url: false').spec.target.metrics_url).toBe(false);
    expect(target('metrics_url: "http://10.0.0.5:9090/metrics"').spec.target.metrics_url).toBe('http://10.0.0.5:9090/metrics');
    expect(() => target('metrics_url: true')).toThrow(/target\.metrics_url is true; expected an http\(s\) URL, or false/);
    expect(() => target('metrics_url: "ftp://10.0.0.5/metrics"')).toThrow(
      /target\.metrics_url "ftp:\/\/10\.0\.0\.5\/metrics" is not an http\(s\) URL/,
    );
    expect(() => target('metrics_url: "http://evil.example/metrics"')).toThrow(/is on evil\.example, not the target's host 10\.0\.0\.5/);
    expect(target('metrics_url: "http://m.internal/metrics", metrics_allowed_hosts: ["*.internal"]').spec.target.metrics_url).toBe(
      'http://m.internal/metrics',
    );
    // Left unset, none of them enters the spec, so existing specs keep their hash.
    expect(Object.keys(target('').spec.target)).not.toContain('metrics_interval');
  });

  test('an explicit model is kept for the simulator', () => {
    expect(parseSpec('target: {url: sim, model: tiny}', 'x.yml', {}).spec.target.model).toBe('tiny');
  });

  test('a bare token count is shorthand for a fixed distribution', () => {
    const r = parseSpec('target: {url: sim}\nworkload: {input_tokens: 256, output_tokens: 1}', 'x.yml', {});
    expect(r.spec.workload.input_tokens).toEqual({ dist: 'fixed', value: 256 });
    expect(r.spec.workload.output_tokens).toEqual({ dist: 'fixed', value: 1 });
    const written = parseSpec(
      'target: {url: sim}\nworkload: {input_tokens: {dist: fixed, value: 256}, output_tokens: {dist: fixed, value: 1}}',
      'x.yml',
      {},
    );
    expect(written.hash).toBe(r.hash);
  });

  test('ignore_eos: true/false is the older spelling of output_control', () => {
    const control = (w: string) => parseSpec(`target: {url: sim}\nworkload: ${w}`, 'x.yml', {}).spec.workload;
    expect(control('{ignore_eos: false}')).toMatchObject({ output_control: 'none' });
    expect(control('{ignore_eos: false}')).not.toHaveProperty('ignore_eos');
    expect(control('{ignore_eos: true}').output_control).toBe('ignore_eos');
    const hash = (w: string) => parseSpec(`target: {url: sim}\nworkload: ${w}`, 'x.yml', {}).hash;
    expect(hash('{ignore_eos: true}')).toBe(hash('{}'));
    expect(hash('{ignore_eos: false}')).toBe(hash('{output_control: none}'));
  });

  test('the new length distributions and workload sections load with their defaults', () => {
    const w = parseSpec(
      `target: {url: sim}
workload:
  input_tokens: {dist: lognormal, mean: 800, stddev: 300, max: 4000}
  output_tokens: {dist: uniform, mean: 1000, range_ratio: 0.2}
  prefix_groups: {groups: 16, tokens: 200}`,
      'x.yml',
      {},
    ).spec.workload;
    expect(w.input_tokens).toEqual({ dist: 'lognormal', mean: 800, stddev: 300, max: 4000 });
    expect(w.output_tokens).toEqual({ dist: 'uniform', mean: 1000, range_ratio: 0.2 });
    expect(w.prefix_groups).toEqual({ groups: 16, tokens: 200, zipf_s: 1 });
    const d = parseSpec(
      'target: {url: sim}\nworkload: {dataset: {path: d.jsonl, format: sharegpt}, output_tokens: {dist: empirical, values: [10, 20], weights: [3, 1]}}',
      'x.yml',
      {},
    ).spec.workload;
    expect(d.dataset).toEqual({ path: 'd.jsonl', format: 'sharegpt', sample: 'without_replacement' });
    // The input_tokens default means nothing beside a dataset, so the resolved spec leaves it out.
    expect(d).not.toHaveProperty('input_tokens');
    expect(d.output_tokens).toEqual({ dist: 'empirical', values: [10, 20], weights: [3, 1] });
  });

  test('SpecError is an Error with a one-line message', () => {
    expect(() => parseSpec('target: {}', 'x.yml', {})).toThrow(SpecError);
    expect(() => parseSpec('target: {}', 'x.yml', {})).toThrow(Error);
  });
});

describe('hash', () => {
  const base = 'name: a\ntarget: {url: sim, headers: {A: "1", B: "2"}}\nload: {rate: 5, steady: 10s}\n';

  test('is stable under key reordering at every depth', () => {
    const reordered = 'load: {steady: 10s, rate: 5}\ntarget: {headers: {B: "2", A: "1"}, url: sim}\nname: a\n';
    expect(parseSpec(reordered, 'x.yml', {}).hash).toBe(parseSpec(base, 'x.yml', {}).hash);
  });

  test('is the same whether a default is written out or left implicit', () => {
    expect(parseSpec(`${base}slo: {ttft_ms: 500}\n`, 'x.yml', {}).hash).toBe(parseSpec(base, 'x.yml', {}).hash);
  });

  test('changes when any value changes', () => {
    const h = parseSpec(base, 'x.yml', {}).hash;
    expect(parseSpec(base.replace('rate: 5', 'rate: 6'), 'x.yml', {}).hash).not.toBe(h);
    expect(parseSpec(base.replace('"2"', '"3"'), 'x.yml', {}).hash).not.toBe(h);
    expect(parseSpec(base.replace('name: a', 'name: b'), 'x.yml', {}).hash).not.toBe(h);
  });

  test('does not depend on the API key', () => {
    const spec = 'target: {url: sim, api_key_env: K}';
    expect(parseSpec(spec, 'x.yml', { K: 'one' }).hash).toBe(parseSpec(spec, 'x.yml', { K: 'two' }).hash);
  });
});
