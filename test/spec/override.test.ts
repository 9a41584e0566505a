import { parseSpec } from '../../src/spec/load.js';
import { applyOverrides } from '../../src/spec/override.js';
import { messageOf } from './helpers.js';

const base = parseSpec('target: {url: sim, model: served-model, api_key_env: K}\n', 'bench.yml', { K: 'sk-secret' });

test('overrides update the spec, the ms fields and the hash, and keep the key', () => {
  const r = applyOverrides(base, {
    targetUrl: 'https://gw.example.com/v1',
    rate: 42.5,
    steady: '2m',
    warmup: '0s',
    concurrency: 64,
    mode: 'closed',
  });
  expect(r.spec.target.url).toBe('https://gw.example.com/v1');
  expect(r.spec.load).toMatchObject({ rate: 42.5, steady: '2m', warmup: '0s', concurrency: 64, mode: 'closed' });
  expect(r.steadyMs).toBe(120_000);
  expect(r.warmupMs).toBe(0);
  expect(r.apiKey).toBe('sk-secret');
  expect(r.hash).not.toBe(base.hash);
  expect(base.spec.load.rate).toBe(10); // the input is not mutated
});

test('no overrides leave the resolved spec as it was', () => {
  expect(applyOverrides(base, {})).toEqual(base);
});

test('the hash matches a spec file that says the same', () => {
  const written = parseSpec('target: {url: sim, model: served-model, api_key_env: K}\nload: {rate: 3}\n', 'bench.yml', { K: 'x' });
  expect(applyOverrides(base, { rate: 3 }).hash).toBe(written.hash);
});

test('numeric flags may arrive as text', () => {
  expect(applyOverrides(base, { rate: '7', concurrency: '3' }).spec.load).toMatchObject({ rate: 7, concurrency: 3 });
});

test.each<[Parameters<typeof applyOverrides>[1], string]>([
  [{ rate: 'x' }, '--rate is "x"; expected a number > 0'],
  [{ rate: -5 }, '--rate is -5; expected a number > 0'],
  [{ rate: 0 }, '--rate is 0; expected a number > 0'],
  [{ rate: Number.NaN }, '--rate is NaN; expected a number > 0'],
  [{ concurrency: 0 }, '--concurrency is 0; expected an integer from 1 to 10,000'],
  [{ concurrency: '2.5' }, '--concurrency is 2.5; expected an integer from 1 to 10,000'],
  [{ concurrency: 1000000 }, '--concurrency is 1000000; expected an integer from 1 to 10,000'],
  // The flag is --duration: the message names what the user typed, not the spec key.
  [{ steady: '30 seconds' }, '--duration "30 seconds" is not a duration; expected e.g. 500ms, 30s, 5m, 1m30s'],
  [{ steady: '0s' }, '--duration is "0s"; expected a duration > 0'],
  [{ steady: '1000000h' }, '--duration is "1000000h"; expected a duration of at most 24h'],
  [{ warmup: 'soon' }, '--warmup "soon" is not a duration; expected e.g. 500ms, 30s, 5m, 1m30s'],
  [{ targetUrl: 'htp:/x' }, '--target-url "htp:/x" is not a URL; expected http(s)://host[:port]/v1 or "sim"'],
  [{ targetUrl: 'ftp://x/v1' }, '--target-url "ftp://x/v1" is not an http(s) URL; expected http(s)://host[:port]/v1 or "sim"'],
  [{ mode: 'half-open' as 'open' }, '--mode is "half-open"; expected one of open, closed'],
])('%j is rejected naming the flag', (overrides, message) => {
  const got = messageOf(() => applyOverrides(base, overrides));
  expect(got).toBe(message);
  expect(got).not.toContain('sk-secret');
});

test("pointing a simulator spec at a real server drops the simulator's placeholder model: the server's list decides", () => {
  const simOnly = parseSpec('target: {url: sim}\n', 'bench.yml', {});
  expect(simOnly.spec.target.model).toBe('loadgate-sim');
  const real = applyOverrides(simOnly, { targetUrl: 'http://gpu:8000/v1' });
  expect(real.spec.target.model).toBeUndefined();
  const named = parseSpec('target: {url: sim, model: llama}\n', 'bench.yml', {});
  expect(applyOverrides(named, { targetUrl: 'http://gpu:8000/v1' }).spec.target.model).toBe('llama');
});

test('credentials in --target-url are refused, pointing at target.api_key_env, and the password is never quoted', () => {
  const got = messageOf(() => applyOverrides(base, { targetUrl: 'http://admin:pw@gpu:8000/v1' }));
  expect(got).toBe(
    '--target-url contains user:password@ credentials (for host gpu:8000); expected a URL without them: put the key in an environment variable and name it in target.api_key_env',
  );
  expect(got).not.toContain('pw');
});
