import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CLOCK_OFFSET_ENV, familyClock, now } from '../src/time.js';

const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

test('now() is wall-clock milliseconds with sub-millisecond resolution', () => {
  const a = now();
  expect(Math.abs(a - Date.now())).toBeLessThan(50);
  expect(now()).toBeGreaterThanOrEqual(a);
  expect(a % 1).not.toBe(0);
});

test('now() is the shared monotonic clock plus the offset it passes to the processes and threads started after', () => {
  const offset = Number(process.env[CLOCK_OFFSET_ENV]);
  expect(Number.isFinite(offset)).toBe(true);
  // Read between two monotonic readings, now() − offset lies between them.
  const before = monotonicMs();
  const t = now() - offset;
  const after = monotonicMs();
  expect(t).toBeGreaterThanOrEqual(before - 0.01);
  expect(t).toBeLessThanOrEqual(after + 0.01);
});

test('a clock started with an inherited offset keeps it: a wall-clock step between two starts changes nothing', () => {
  const offset = Number(process.env[CLOCK_OFFSET_ENV]);
  // A parent that read the wall clock 5 s ahead (as if it had been stepped since) hands its offset down.
  const env: Record<string, string | undefined> = { [CLOCK_OFFSET_ENV]: String(offset + 5000) };
  const before = now();
  const clock = familyClock(env);
  const t = clock();
  const after = now();
  // Each thread knows its origin on the monotonic clock to well under a microsecond: 5 µs of slack.
  expect(t - 5000).toBeGreaterThanOrEqual(before - 0.005);
  expect(t - 5000).toBeLessThanOrEqual(after + 0.005);
  expect(env[CLOCK_OFFSET_ENV]).toBe(String(offset + 5000));
});

const offsetNow = () => Number(process.env[CLOCK_OFFSET_ENV]);
test.each([
  ['empty', () => ''],
  ['not a number', () => 'abc'],
  ['negative', () => '-3'],
  ['infinite', () => 'Infinity'],
  // Another boot's (the monotonic clock restarted since), left in a shell's environment.
  ['a day off', () => String(offsetNow() - 86_400_000)],
  ['61 s off', () => String(offsetNow() + 61_000)],
])('an inherited offset that is %s is not the family clock: the thread reads its own and passes that on', (_, bad) => {
  const env: Record<string, string | undefined> = { [CLOCK_OFFSET_ENV]: bad() };
  const clock = familyClock(env);
  expect(Math.abs(clock() - Date.now())).toBeLessThan(50);
  const passed = Number(env[CLOCK_OFFSET_ENV]);
  expect(Number.isFinite(passed) && passed > 0).toBe(true);
});

test("the bundled clock (dist/clock.js, through test/fixtures/clock.mjs, in a child process) reads what now() reads, and honours a parent's offset", () => {
  const clockFile = fileURLToPath(new URL('./fixtures/clock.mjs', import.meta.url));
  const read = (env: NodeJS.ProcessEnv) => {
    const t0 = now();
    const r = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `const { now } = await import(${JSON.stringify(clockFile)}); console.log(now());`],
      {
        env,
        encoding: 'utf8',
        timeout: 10_000,
      },
    );
    expect(r.status).toBe(0);
    return { t0, t: Number(r.stdout.trim()), t1: now() };
  };
  const same = read(process.env);
  expect(same.t).toBeGreaterThanOrEqual(same.t0 - 0.005);
  expect(same.t).toBeLessThanOrEqual(same.t1 + 0.005);
  const shifted = read({ ...process.env, [CLOCK_OFFSET_ENV]: String(Number(process.env[CLOCK_OFFSET_ENV]) + 5000) });
  expect(shifted.t - 5000).toBeGreaterThanOrEqual(shifted.t0 - 0.005);
  expect(shifted.t - 5000).toBeLessThanOrEqual(shifted.t1 + 0.005);
  // Another boot's offset is not taken: the child reads its own (the wall clock's, as this process's within a few µs).
  const stale = read({ ...process.env, [CLOCK_OFFSET_ENV]: String(Number(process.env[CLOCK_OFFSET_ENV]) - 86_400_000) });
  expect(stale.t).toBeGreaterThanOrEqual(stale.t0 - 0.05);
  expect(stale.t).toBeLessThanOrEqual(stale.t1 + 0.05);
});
