import { createHash } from 'node:crypto';
import { constantCurve } from '../../src/arrivals/curve.js';
import { buildSchedule } from '../../src/arrivals/schedule.js';

/**
 * The schedules today's constant-rate code produced (sha256 of the Float64Array's bytes),
 * recorded before the rate curve existed: a constant curve must reproduce them bit for bit,
 * so a spec without a pattern sends exactly what it sent before, for the same seed.
 */
const RECORDED = [
  ['poisson', 1, 10, 1, 37000, 399, '9ba53523331a110f029b1860d8a88f74e1497966d22f84a8f2bb6c6142f36800'],
  ['poisson', 7, 3.3, 0.5, 61000, 216, '38cf047b81bbd5adb3fc69c119372888d9ab02f56d24ba0ddee82e1887136b3e'],
  ['poisson', 424242, 250, 2, 12345, 3086, 'f4a99d7e4c9321d9ae5a1503b03d84a767ded0b152e0616688e081eec7269136'],
  ['poisson', 99, 0.7, 1, 300000, 203, '9c6cc475d833a98f16cdd293b9c4a2787e0c591b06162334ed17e520e2104ec9'],
  ['constant', 1, 10, 1, 37000, 369, 'd0a00ec258465427ace34abee1c3e36d7082bc5b3a5a406c4a31d286897eb912'],
  ['constant', 7, 3.3, 0.5, 61000, 201, 'b91cff87746fa8dd7b1c9825aa84a4c7e9444f3d16c6afe186836e6c99cbb39b'],
  ['constant', 424242, 250, 2, 12345, 3086, '05f35af0523567e5860de9a68773e7d35dc84a898595c46382f751165ba66005'],
  ['constant', 99, 0.7, 1, 300000, 210, '21ddec790cc92422c0522a3651dbbdab6ce036028cba0b53d39f5f7357a55e0d'],
  ['gamma', 1, 10, 1, 37000, 361, 'de17a53ad2f03ac89723eca75a5cb8c5aa5639fb17058bd9c36730a7603451bf'],
  ['gamma', 7, 3.3, 0.5, 61000, 211, '5f0c3e9455356282594e72a9d5fa9d9aac7a1dde95dd0e9b67cd6f98aeed4c3f'],
  ['gamma', 424242, 250, 2, 12345, 3126, '3af305f18ed738a5924c72fbf2a08221a315e762f92db745617d2a3df2836a2a'],
  ['gamma', 99, 0.7, 1, 300000, 198, '2e2ef6ed04ef58899e1b42c847341e5b4c305976c43b8ccdc9f49347d9a4617a'],
] as const;

const sha = (s: Float64Array) =>
  createHash('sha256')
    .update(Buffer.from(s.buffer, s.byteOffset, s.byteLength))
    .digest('hex');

describe('a constant rate reproduces the pre-curve schedule exactly', () => {
  test.each(RECORDED)('%s seed %d at %d req/s (burstiness %d, %d ms)', (kind, seed, rate, burstiness, durationMs, n, hash) => {
    const s = buildSchedule({ kind, ratePerS: rate, burstiness, seed, durationMs });
    expect(s.length).toBe(n);
    expect(sha(s)).toBe(hash);
  });

  test.each(RECORDED)(
    '%s seed %d at %d req/s as a constant curve (burstiness %d, %d ms)',
    (kind, seed, rate, burstiness, durationMs, n, hash) => {
      const s = buildSchedule({ kind, curve: constantCurve(rate), burstiness, seed, durationMs });
      expect(s.length).toBe(n);
      expect(sha(s)).toBe(hash);
    },
  );
});
