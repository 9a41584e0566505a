import { now } from '../src/time.js';

test('now() is wall-clock milliseconds with sub-millisecond resolution', () => {
  const a = now();
  expect(Math.abs(a - Date.now())).toBeLessThan(50);
  expect(now()).toBeGreaterThanOrEqual(a);
  expect(a % 1).not.toBe(0);
});
