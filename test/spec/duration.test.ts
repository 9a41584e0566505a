import { parseDuration } from '../../src/spec/duration.js';

test.each([
  ['500ms', 500],
  ['30s', 30_000],
  ['5m', 300_000],
  ['1h', 3_600_000],
  ['1.5s', 1_500],
  ['1m30s', 90_000],
  ['1h2m3s4ms', 3_723_004],
  ['0s', 0],
])('%s is %d ms', (text, ms) => {
  expect(parseDuration(text)).toBe(ms);
});

test.each(['30', '30 seconds', '', 's', '-5s', '1.s', '5d', '30S', ' 30s', '1m 30s'])('%j is rejected', (text) => {
  expect(() => parseDuration(text)).toThrow(`${JSON.stringify(text)} is not a duration; expected e.g. 500ms, 30s, 5m, 1m30s`);
});
