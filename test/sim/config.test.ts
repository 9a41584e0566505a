import { SIM_DEFAULTS, validateSimConfig } from '../../src/sim/config.js';
import { launchSim } from '../../src/sim/launch.js';

const errorOf = (input: unknown) => {
  try {
    validateSimConfig(input);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a config error');
};

test('an empty config is the defaults', () => {
  expect(validateSimConfig({})).toEqual(SIM_DEFAULTS);
  expect(validateSimConfig(undefined)).toEqual(SIM_DEFAULTS);
});

test('bad configs give one line naming the field, worded as spec errors are (spec/messages.ts)', () => {
  expect(errorOf({ max_num_seqs: -1 })).toBe('sim config: max_num_seqs is -1; expected an integer ≥ 1');
  expect(errorOf({ max_num_seq: 4 })).toBe('sim config: max_num_seq is not a known key; did you mean "max_num_seqs"?');
  expect(errorOf({ mode: 'turbo' })).toBe('sim config: mode is "turbo"; expected one of engine, paced, fast');
  expect(errorOf({ slowdown: 0 })).toBe('sim config: slowdown is 0; expected a number > 0');
  expect(errorOf({ error_rate: 2 })).toBe('sim config: error_rate is 2; expected a number between 0 and 1');
  expect(errorOf({ output_tokens: { dist: 'fixed' } })).toBe('sim config: output_tokens.value is missing; expected an integer ≥ 1');
  expect(errorOf({ output_tokens: { dist: 'zipf' } })).toBe(
    'sim config: output_tokens.dist is "zipf"; expected one of geometric, fixed, uniform',
  );
  expect(errorOf({ stall: { duration_ms: 100, every: 5 } })).toBe('sim config: stall.every is not a known key; did you mean "every_ms"?');
  expect(errorOf({ stall: { duration_ms: 100 } })).toBe('sim config: stall has neither every_ms nor at_ms; expected at least one');
  expect(errorOf({ error_rate: 0.6, reset_rate: 0.6 })).toMatch(/^sim config: error_rate \+ .* is 1.2; expected ≤ 1$/);
  expect(errorOf({ kv_cache_tokens: 1000 })).toMatch(/^sim config: kv_cache_tokens is 1000; expected ≥ max_model_len \(8192\)/);
  expect(errorOf([1])).toBe('sim config: is a list; expected a mapping');
});

test("launchSim rejects with the sim's one-line config error", async () => {
  await expect(launchSim({ max_num_seqs: -1 })).rejects.toThrow(
    /^loadgate sim exited \(code 3\) before listening: sim config: max_num_seqs is -1; expected an integer ≥ 1$/,
  );
});
