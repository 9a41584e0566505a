/** Every run has a hard wall-clock bound derived from its spec, and the watchdog keeps it. */
import { armWatchdog } from '../../src/run/watchdog.js';
import { wallClockBoundMs } from '../../src/run/bound.js';
import { parseSpec } from '../../src/spec/load.js';

const spec = (text: string) => parseSpec(text, 'bound.yml', {});

test('the bound is the sum of the phases’ own limits, per replicate, plus a margin', () => {
  const base = spec(
    'target: {url: "http://127.0.0.1:8000/v1", model: m, request_timeout: 10s, ready_timeout: 20s}\nworkload: {calibrate: off}\nload: {warmup: 5s, steady: 30s, cooldown: 2s}\n',
  );
  // ready 20 + warmup 5 + steady 30 + cooldown 2 + drain (request timeout 10 + 2) + margin 30
  expect(wallClockBoundMs(base)).toBe(99_000);
  expect(wallClockBoundMs(base, 3)).toBe(3 * 69_000 + 30_000);
  const calibrated = spec(
    'target: {url: "http://127.0.0.1:8000/v1", model: m, request_timeout: 10s, ready_timeout: 20s}\nload: {warmup: 5s, steady: 30s, cooldown: 2s}\n',
  );
  // + calibration: 2 tokenize probes of at most 10 s and 21 requests of at most the request timeout
  expect(wallClockBoundMs(calibrated)).toBe(99_000 + 20_000 + 21 * 10_000);
  const sim = spec(
    'target: {url: sim, request_timeout: 10s, ready_timeout: 20s}\nworkload: {calibrate: off}\nload: {warmup: 5s, steady: 30s, cooldown: 2s}\n',
  );
  expect(wallClockBoundMs(sim)).toBe(99_000 + 13_000); // the simulator's start and stop
});

test('the watchdog stops the command at its bound, gives up after the grace, and never fires once disarmed', async () => {
  const events: string[] = [];
  const t0 = Date.now();
  armWatchdog({
    boundMs: 100,
    graceMs: 100,
    onBound: () => events.push(`bound ${Date.now() - t0}`),
    onGiveUp: () => events.push(`give up ${Date.now() - t0}`),
  });
  await new Promise((r) => setTimeout(r, 400));
  expect(events).toHaveLength(2);
  expect(Number(events[0].split(' ')[1])).toBeGreaterThanOrEqual(99);
  expect(Number(events[1].split(' ')[2])).toBeGreaterThanOrEqual(199);

  const late: string[] = [];
  const disarm = armWatchdog({ boundMs: 100, graceMs: 100, onBound: () => late.push('bound'), onGiveUp: () => late.push('give up') });
  disarm();
  await new Promise((r) => setTimeout(r, 250));
  expect(late).toEqual([]);

  // Stopped at the bound but finished within the grace: disarming then cancels the give-up.
  const finished: string[] = [];
  const disarm2 = armWatchdog({
    boundMs: 50,
    graceMs: 200,
    onBound: () => finished.push('bound'),
    onGiveUp: () => finished.push('give up'),
  });
  await new Promise((r) => setTimeout(r, 100));
  disarm2();
  await new Promise((r) => setTimeout(r, 250));
  expect(finished).toEqual(['bound']);
});
