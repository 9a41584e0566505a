import { dispatchOpenLoop } from '../../src/dispatch/open-loop.js';
import { dispatchClosedLoop } from '../../src/dispatch/closed-loop.js';
import { now } from '../../src/time.js';

describe('open-loop dispatch', () => {
  test('fires every arrival in order, never before its due time, with its absolute due time', async () => {
    const schedule = Float64Array.from({ length: 100 }, (_, i) => 20 + i * 3.3);
    const runStart = now() + 10;
    const fired: { i: number; due: number; at: number }[] = [];
    const h = dispatchOpenLoop({ schedule, runStart, fire: (i, due) => fired.push({ i, due, at: now() }) });
    expect(await h.done).toBe(100);
    expect(fired.map((f) => f.i)).toEqual([...Array(100).keys()]);
    for (const f of fired) {
      expect(f.due).toBeCloseTo(runStart + schedule[f.i], 9);
      expect(f.at).toBeGreaterThanOrEqual(f.due);
    }
  });

  test('does not wait for slow work: a blocked fire delays the next arrivals, which then catch up with their own due times', async () => {
    const schedule = Float64Array.from({ length: 20 }, (_, i) => 10 + i * 2);
    const runStart = now();
    const due: number[] = [];
    const h = dispatchOpenLoop({
      schedule,
      runStart,
      fire: (i, d) => {
        due.push(d);
        if (i === 0) {
          const until = now() + 15;
          while (now() < until); // the generator stalls: later arrivals keep their intended times
        }
      },
    });
    await h.done;
    expect(due).toHaveLength(20);
    expect(due[5]).toBeCloseTo(runStart + 20, 9);
  });

  test('stop() ends dispatch early and reports how many fired', async () => {
    const schedule = Float64Array.from({ length: 1000 }, (_, i) => i * 5);
    let n = 0;
    const h = dispatchOpenLoop({ schedule, runStart: now(), fire: () => n++ });
    setTimeout(h.stop, 100);
    const fired = await h.done;
    expect(fired).toBe(n);
    expect(fired).toBeGreaterThan(5);
    expect(fired).toBeLessThan(1000);
  });
});

describe('closed-loop dispatch', () => {
  test('keeps exactly `concurrency` requests in flight until the deadline', async () => {
    let inFlight = 0;
    let peak = 0;
    let started = 0;
    const h = dispatchClosedLoop({
      concurrency: 4,
      until: now() + 150,
      fire: (_i, _t, finished) => {
        started++;
        inFlight++;
        peak = Math.max(peak, inFlight);
        setTimeout(() => {
          inFlight--;
          finished();
        }, 10);
      },
    });
    const n = await h.done;
    expect(n).toBe(started);
    expect(peak).toBe(4);
    expect(inFlight).toBe(0);
    expect(started).toBeGreaterThan(20);
  });
});
