import { AbortWatch, MIN_ERROR_SAMPLES } from '../../src/run/abort-watch.js';

const abort = (o: Partial<{ maxErrorRate: number | null; overSaturation: boolean }>) =>
  new AbortWatch({ maxErrorRate: o.maxErrorRate ?? null, windowMs: 10_000, overSaturation: o.overSaturation ?? false, fail: false });

/**
 * Drives a watch with a server of fixed service time: `arrive` requests per second, each
 * ending `serviceMs` later (or never, when `stalled` says so), ok unless `failing` says no.
 * Returns the first decision and the time it came.
 */
function drive(
  w: AbortWatch,
  o: { rate: number; serviceMs: number; untilMs: number; failing?: (t: number) => boolean; stalled?: (t: number) => boolean },
) {
  const ends: { t: number; ok: boolean }[] = [];
  let inFlight = 0;
  const gap = 1000 / o.rate;
  for (let t = 0, next = 0; t <= o.untilMs; t += 10) {
    while (next <= t) {
      inFlight++;
      w.arrival(next, inFlight);
      if (!o.stalled?.(next)) ends.push({ t: next + o.serviceMs, ok: !o.failing?.(next) });
      next += gap;
    }
    ends.sort((a, b) => a.t - b.t);
    while (ends.length > 0 && ends[0].t <= t) {
      const e = ends.shift()!;
      inFlight--;
      w.end(e.t, e.ok, inFlight);
    }
    const d = w.check(t, inFlight);
    if (d) return d;
  }
  return null;
}

test('the error rate aborts within the window after a server starts failing everything, not before', () => {
  const d = drive(abort({ maxErrorRate: 0.5 }), { rate: 20, serviceMs: 100, untilMs: 60_000, failing: (t) => t >= 30_000 });
  expect(d?.reason).toBe('error_rate');
  // Half of a 10 s window failing: about 5 s after the break (plus the 100 ms service time).
  expect(d!.atMs).toBeGreaterThan(30_000 + 4000);
  expect(d!.atMs).toBeLessThan(30_000 + 10_000);
  expect(d!.detail).toMatch(/requests that ended in the last 10 s failed/);
});

test('a few early errors are not a rate; a healthy server is never aborted', () => {
  expect(
    drive(abort({ maxErrorRate: 0.5 }), { rate: 0.5, serviceMs: 100, untilMs: 2 * MIN_ERROR_SAMPLES * 1000 - 2000, failing: () => true }),
  ).toBeNull();
  expect(
    drive(abort({ maxErrorRate: 0.5, overSaturation: true }), {
      rate: 50,
      serviceMs: 400,
      untilMs: 60_000,
      failing: (t) => Math.round(t / 20) % 5 === 0,
    }),
  ).toBeNull(); // every 5th fails: 20 %
});

test('over-saturation: in flight climbing while completions stall aborts; a busy but keeping-up server does not', () => {
  const d = drive(abort({ overSaturation: true }), { rate: 20, serviceMs: 100, untilMs: 60_000, stalled: (t) => t >= 20_000 });
  expect(d?.reason).toBe('over_saturation');
  expect(d!.atMs).toBeGreaterThan(20_000);
  expect(d!.atMs).toBeLessThan(20_000 + 10_000 + 500);
  // 100 in flight for ever (service 5 s at 20 req/s) is a long queue, not a growing one.
  expect(drive(abort({ overSaturation: true }), { rate: 20, serviceMs: 5000, untilMs: 60_000 })).toBeNull();
  // Without the opt-in the same stall goes on.
  expect(drive(abort({ maxErrorRate: 0.5 }), { rate: 20, serviceMs: 100, untilMs: 40_000, stalled: (t) => t >= 20_000 })).toBeNull();
});
