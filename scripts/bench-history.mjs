#!/usr/bin/env node
// How well the history check sees a step: seeded simulated nightly series (normal noise at a
// given coefficient of variation around 100, a relative step from a given night on) go through
// the same check `loadgate history check` runs (E-divisive means, permutation test, the
// min-change filter). Prints, per setting, the detection rate (a change point within ±1 night of
// the step) and the false-alarm rate (any change point in a series without a step). Asserts nothing.
//
//   node scripts/bench-history.mjs [--trials 500] [--seed 1]
import { build } from 'esbuild';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { root } from './sim-process.mjs';

const { values: opt } = parseArgs({ options: { trials: { type: 'string', default: '500' }, seed: { type: 'string', default: '1' } } });
const trials = Number(opt.trials);
const seed = Number(opt.seed);

const dir = mkdtempSync(join(tmpdir(), 'loadgate-bench-history-'));
const entry = join(dir, 'entry.ts');
writeFileSync(
  entry,
  `export { checkHistory } from '${root}src/history/analyze.ts';\nexport { DEFAULT_CHECK } from '${root}src/history/types.ts';\nexport { createRng, normal, deriveSeed } from '${root}src/rng.ts';\n`,
);
await build({
  entryPoints: [entry],
  outfile: join(dir, 'history.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  logLevel: 'warning',
});
const { checkHistory, DEFAULT_CHECK, createRng, normal, deriveSeed } = await import(join(dir, 'history.mjs'));

/** One simulated history of `nights` lines of one latency metric. */
function series(trial, o) {
  const rng = createRng(deriveSeed(seed, `${JSON.stringify(o)}/${trial}`));
  return Array.from({ length: o.nights }, (_, i) => {
    const value = 100 * (i >= o.at ? 1 + o.step : 1) * (1 + o.cv * normal(rng));
    const figure = { value, lower: null, upper: null, unit: 'ms', better: 'lower', timestamp_error_ms: null };
    return {
      v: 1,
      run_id: `r${i}`,
      date: '2026-01-01',
      commit: null,
      ref: null,
      spec_name: 's',
      spec_hash: 'h',
      runner: null,
      verdict: 'pass',
      metrics: { tpot_p50: figure },
    };
  });
}

function rates(o) {
  const settings = { ...DEFAULT_CHECK, false_alarm_rate: o.alpha, seed };
  let detected = 0;
  let near = 0;
  let any = 0;
  let alarms = 0;
  const started = performance.now();
  for (let t = 0; t < trials; t++) {
    const stepped = checkHistory(series(t, o), settings).change_points;
    if (stepped.some((c) => Math.abs(c.index - o.at) <= 1)) detected++;
    if (stepped.some((c) => Math.abs(c.index - o.at) <= 2)) near++;
    if (stepped.length > 0) any++;
    if (checkHistory(series(t, { ...o, step: 0 }), settings).change_points.length > 0) alarms++;
  }
  const ms = (performance.now() - started) / (2 * trials);
  return { detected: detected / trials, near: near / trials, any: any / trials, alarms: alarms / trials, ms };
}

const pct = (x) => `${(100 * x).toFixed(1)} %`;
const ci = (p) => `± ${(196 * Math.sqrt((p * (1 - p)) / trials)).toFixed(1)}`;
const settings = [
  { nights: 20, at: 10, step: 0.1, cv: 0.1, alpha: 0.05 },
  { nights: 20, at: 10, step: 0.1, cv: 0.1, alpha: 0.01 },
  { nights: 20, at: 15, step: 0.1, cv: 0.1, alpha: 0.05 },
  { nights: 20, at: 10, step: 0.2, cv: 0.1, alpha: 0.05 },
  { nights: 20, at: 10, step: 0.1, cv: 0.05, alpha: 0.05 },
  { nights: 40, at: 20, step: 0.1, cv: 0.1, alpha: 0.05 },
  { nights: 20, at: 11, step: 0.25, cv: 0.05, alpha: 0.01 },
];
console.log(
  `history check: ${trials} seeded series per row (seed ${seed}); min change ${DEFAULT_CHECK.min_change_pct} %, min size ${DEFAULT_CHECK.min_size}, ${DEFAULT_CHECK.permutations} permutations`,
);
console.log(
  '| nights | step at | step | CV | alpha per metric | detected ±1 night | ±2 nights | anywhere | false alarms (no step) | ms per check |',
);
console.log('|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
for (const o of settings) {
  const r = rates(o);
  console.log(
    `| ${o.nights} | ${o.at} | ${pct(o.step)} | ${pct(o.cv)} | ${o.alpha} | ${pct(r.detected)} ${ci(r.detected)} | ${pct(r.near)} | ${pct(r.any)} | ${pct(r.alarms)} ${ci(r.alarms)} | ${r.ms.toFixed(1)} |`,
  );
}
