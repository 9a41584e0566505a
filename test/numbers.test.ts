import fc from 'fast-check';
import { figure } from '../src/numbers.js';

test('figure groups thousands as en-US does, rounding first, and turns to exponent form from 1e15', () => {
  fc.assert(
    fc.property(fc.double({ min: -1e15 + 1, max: 1e15 - 1, noNaN: true }), (n) => {
      expect(figure(n)).toBe(Math.round(n).toLocaleString('en-US').replace('-0', '0'));
    }),
    { seed: 3, numRuns: 2000 },
  );
  expect(figure(1234567)).toBe('1,234,567');
  expect(figure(999.5)).toBe('1,000');
  expect(figure(2e15)).toBe('2.0e+15');
});
