import { dispatchSessions } from '../../src/dispatch/sessions.js';
import { createRng } from '../../src/rng.js';
import { now } from '../../src/time.js';
import { thinkSampler } from '../../src/workload/think-time.js';

test('each next turn is due at the previous end plus the think time, never fired early; the run’s end cuts', async () => {
  const fired: { s: number; turn: number; tDue: number; at: number; tEnd?: number }[] = [];
  const cut: [number, number][] = [];
  const runStart = now() + 20;
  const h = dispatchSessions({
    starts: Float64Array.from([0, 10]),
    runStart,
    until: runStart + 200,
    cut: (s, turn) => cut.push([s, turn]),
    fire(s, turn, tDue, ended) {
      const f = { s, turn, tDue, at: now(), tEnd: NaN };
      fired.push(f);
      // Each turn "takes" 15 ms, then thinks 40 ms; session 1 fails its second turn.
      setTimeout(() => ended((f.tEnd = now()), s === 1 && turn === 1 ? null : 40), 15);
    },
  });
  expect(await h.done).toBe(2);
  for (const f of fired) expect(f.at).toBeGreaterThanOrEqual(f.tDue);
  const ofSession = (s: number) => fired.filter((f) => f.s === s);
  expect(ofSession(1).map((f) => f.turn)).toEqual([0, 1]);
  // Session 0 keeps going until a turn would be due after `until`, and is cut there.
  const turns0 = ofSession(0);
  for (let k = 1; k < turns0.length; k++) expect(turns0[k].tDue).toBe(turns0[k - 1].tEnd! + 40);
  expect(turns0.length).toBeGreaterThanOrEqual(2);
  expect(cut).toEqual([[0, turns0.length]]);
  expect(turns0[turns0.length - 1].tDue).toBeLessThan(runStart + 200);
});

test('stop ends the sessions waiting on a think time (reported as cut) and resolves done', async () => {
  const cut: number[] = [];
  const runStart = now();
  const h = dispatchSessions({
    starts: Float64Array.from([0]),
    runStart,
    until: runStart + 10_000,
    cut: (s) => cut.push(s),
    fire: (_s, _turn, _tDue, ended) => ended(now(), 5_000),
  });
  await new Promise((r) => setTimeout(r, 30));
  h.stop();
  expect(await h.done).toBe(1);
  expect(cut).toEqual([0]);
});

test('think times: a fixed duration, uniform within its bounds, exponential with its mean', () => {
  const rng = createRng(7);
  expect(thinkSampler('300ms')(rng)).toBe(300);
  const u = thinkSampler({ dist: 'uniform', min: '1s', max: '2s' });
  const us = Array.from({ length: 2000 }, () => u(rng));
  expect(Math.min(...us)).toBeGreaterThanOrEqual(1000);
  expect(Math.max(...us)).toBeLessThan(2000);
  const e = thinkSampler({ dist: 'exponential', mean: '500ms' });
  const es = Array.from({ length: 20_000 }, () => e(rng));
  expect(Math.abs(es.reduce((a, b) => a + b, 0) / es.length / 500 - 1)).toBeLessThan(0.03);
  expect(Math.min(...es)).toBeGreaterThanOrEqual(0);
});
