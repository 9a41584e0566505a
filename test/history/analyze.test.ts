import { checkHistory } from '../../src/history/analyze.js';
import { sinceWhenLines } from '../../src/history/since.js';
import { checkSettings } from '../../src/history/settings.js';
import { DEFAULT_CHECK, type HistoryLine } from '../../src/history/types.js';
import { createRng, normal } from '../../src/rng.js';

/** Nights of two metrics: TPOT p50 (lower is better) and output tokens/s (higher is better). */
function nights(
  n: number,
  o: { seed?: number; tpot?: (i: number) => number; tokens?: (i: number) => number; spec?: (i: number) => string } = {},
) {
  const rng = createRng(o.seed ?? 1);
  return Array.from({ length: n }, (_, i): HistoryLine => {
    const fig = (value: number, better: 'lower' | 'higher', unit: 'ms' | 'tok/s') => ({
      value,
      lower: value * 0.97,
      upper: value * 1.03,
      unit,
      better,
      timestamp_error_ms: null,
    });
    return {
      v: 1,
      run_id: `r${i}`,
      date: `2026-11-${String(i + 1).padStart(2, '0')}T02:00:00.000Z`,
      commit: `${i.toString(16).padStart(7, '0')}deadbeef`,
      ref: 'refs/heads/main',
      spec_name: 'nightly',
      spec_hash: o.spec?.(i) ?? 'h1',
      runner: 'r',
      verdict: 'pass',
      metrics: {
        tpot_p50: fig((o.tpot?.(i) ?? 10) * (1 + 0.03 * normal(rng)), 'lower', 'ms'),
        output_tokens_per_s: fig((o.tokens?.(i) ?? 500) * (1 + 0.03 * normal(rng)), 'higher', 'tok/s'),
        error_rate: { value: 0, lower: null, upper: null, unit: 'fraction', better: 'lower', timestamp_error_ms: null },
      },
    };
  });
}

describe('the history check', () => {
  it('reports a step with its night, date, commit, means and p-value, and fails when it is among the latest nights and worse', () => {
    const c = checkHistory(nights(20, { tpot: (i) => (i >= 17 ? 13 : 10) }), DEFAULT_CHECK);
    const cp = c.change_points.find((x) => x.metric === 'tpot_p50')!;
    expect(cp).toMatchObject({
      index: 17,
      date: '2026-11-18T02:00:00.000Z',
      commit: '0000011deadbeef',
      direction: 'worse',
      recent: true,
      label: 'TPOT p50',
    });
    expect(cp.before).toBeCloseTo(10, 0);
    expect(cp.after).toBeCloseTo(13, 0);
    expect(cp.change).toBeGreaterThan(0.2);
    expect(cp.p_value).toBeLessThanOrEqual(c.alpha_per_metric!);
    expect(c.verdict).toBe('fail');
    expect(c.failing).toEqual([cp]);
    expect(c.series.find((s) => s.metric === 'error_rate')!.searched).toBe(false); // charted, not searched
    expect(sinceWhenLines(c, [])[0]).toMatch(/^TPOT p50 \+\d+(\.\d)? % since 2026-11-18, commit 0000011 \(/);
  });

  it('reports an older step without failing, and an improvement never fails', () => {
    const old = checkHistory(nights(20, { tpot: (i) => (i >= 6 ? 13 : 10) }), DEFAULT_CHECK);
    expect(old.change_points.map((x) => [x.metric, x.index, x.recent])).toEqual([['tpot_p50', 6, false]]);
    expect(old.verdict).toBe('pass');
    const faster = checkHistory(nights(20, { tokens: (i) => (i >= 16 ? 650 : 500) }), DEFAULT_CHECK);
    expect(faster.change_points).toMatchObject([{ metric: 'output_tokens_per_s', index: 16, direction: 'better', recent: true }]);
    expect(faster.verdict).toBe('pass');
    const slower = checkHistory(nights(20, { tokens: (i) => (i >= 16 ? 380 : 500) }), DEFAULT_CHECK);
    expect(slower.failing).toMatchObject([{ metric: 'output_tokens_per_s', direction: 'worse' }]);
  });

  it('does not call one outlier night a change point, over many seeds', () => {
    let alarms = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const at = 3 + (seed % 15);
      const c = checkHistory(nights(20, { seed, tpot: (i) => (i === at ? 18 : 10) }), DEFAULT_CHECK);
      if (c.change_points.length > 0) alarms++;
    }
    expect(alarms).toBeLessThanOrEqual(2);
  });

  it('leaves out changes under min_change_pct and nights of another spec', () => {
    const small = checkHistory(nights(30, { tpot: (i) => (i >= 15 ? 10.3 : 10) }), { ...DEFAULT_CHECK, min_change_pct: 5 });
    expect(small.change_points).toEqual([]);
    const respec = checkHistory(nights(26, { tpot: (i) => (i >= 6 ? 14 : 10), spec: (i) => (i >= 6 ? 'h2' : 'h1') }), DEFAULT_CHECK);
    expect(respec.analysed).toBe(20);
    expect(respec.other_specs).toBe(6);
    expect(respec.change_points).toEqual([]);
  });

  it('is reproducible from its seed, and its settings are checked with one line each', () => {
    const lines = nights(20, { tpot: (i) => (i >= 10 ? 11 : 10) });
    expect(checkHistory(lines, DEFAULT_CHECK)).toEqual(checkHistory(lines, DEFAULT_CHECK));
    const flag = (k: string) => `--${k.replace(/_/g, '-')}`;
    expect(checkSettings({ fail_nights: '2', false_alarm_rate: '0.01' }, flag)).toMatchObject({
      fail_nights: 2,
      false_alarm_rate: 0.01,
      permutations: 999,
    });
    expect(() => checkSettings({ false_alarm_rate: '5' }, flag)).toThrow(
      /^--false-alarm-rate is "5"; expected a fraction above 0 and at most 0\.5/,
    );
    expect(() => checkSettings({ min_size: '1' }, flag)).toThrow(/^--min-size is "1"; expected a whole number ≥ 2/);
    expect(() => checkSettings({ permutations: 'many' }, flag)).toThrow(/^--permutations is "many"/);
  });
});
