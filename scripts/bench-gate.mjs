#!/usr/bin/env node
// How good is the gate? Prints figures; asserts nothing.
//
// A/A: two runs of the same simulator and config are compared with the default rules; any
// "fail" is a false failure. A/B: the candidate simulator is 15 % slower (slowdown 1.15);
// a "fail" is a detection. Runs alternate between A and B so drift of the machine hits both.
//
// Time scaling: a 60 s window at 15 req/s (900 samples) is replayed k times faster — the
// simulator's compute times divided by k, the rate multiplied by k, and the gate's absolute
// floors divided by k — which keeps the queueing dynamics, the sample count and the rules'
// meaning. The default k = 4 keeps the generator (at 60 req/s) well inside its own validity
// limits; a 100 + 100 study takes about an hour.
//
//   npm run bench:gate                     # 100 A/A and 100 A/B comparisons (~1 h)
//   node scripts/bench-gate.mjs --runs 20  # a quicker, rougher estimate
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { root, startSim } from './sim-process.mjs';

const { values: opt } = parseArgs({ options: { runs: { type: 'string', default: '100' }, scale: { type: 'string', default: '4' } } });
const RUNS = Number(opt.runs);
const K = Number(opt.scale);
const RATE = 15;
const WINDOW_S = 60;
const dir = mkdtempSync(join(tmpdir(), 'loadgate-bench-gate-'));

// An engine whose TPOT (~25 ms unscaled) clears the default floors by more than 15 %, at about
// half its analytic capacity (src/sim/engine.ts): 1 / (64·20/128 + 0.2·63 + 0.02·400) ms ≈ 33 req/s.
const engine = (slowdown) => ({
  model: 'gate-bench',
  seed: 1,
  max_num_seqs: 128,
  decode_base_ms: 20 / K,
  decode_ms_per_seq: 0.2 / K,
  prefill_ms_per_token: 0.02 / K,
  enable_prefix_caching: false,
  slowdown,
});

function spec(origin) {
  const path = join(dir, `spec-${origin.replace(/\W/g, '')}.yml`);
  // The default rules, with their absolute floors scaled like every latency.
  writeFileSync(
    path,
    `name: gate-bench
target: { url: "${origin}/v1", model: gate-bench }
workload: { seed: 7, input_tokens: { dist: normal, mean: 400, stddev: 100, min: 16, max: 1000 }, output_tokens: 64, calibrate: off }
load: { rate: ${RATE * K}, warmup: ${Math.max(1, Math.round(10 / K))}s, steady: ${(WINDOW_S / K).toFixed(3)}s, cooldown: 0s }
slo: { ttft_ms: ${500 / K}, tpot_ms: ${50 / K}, e2e_ms: ${10000 / K} }
gate:
  latency:
    ttft_p95: { max_increase_pct: 10, max_increase_ms: ${20 / K} }
    tpot_p50: { max_increase_pct: 10, max_increase_ms: ${2 / K} }
    tpot_p95: { max_increase_pct: 10, max_increase_ms: ${2 / K} }
    itl_p99: { max_increase_pct: 15, max_increase_ms: ${5 / K} }
    e2e_p95: { max_increase_pct: 10, max_increase_ms: ${50 / K} }
`,
  );
  return path;
}

function run(specPath, i) {
  const out = join(dir, `r${i}.json`);
  const r = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'run', specPath, '--out', out, '--workers', '1'], { encoding: 'utf8' });
  if (r.status === 3) throw new Error(r.stderr);
  return out;
}

function compare(baseline, current, specPath) {
  const r = spawnSync(process.execPath, [join(root, 'dist/cli.js'), 'compare', baseline, current, '--spec', specPath, '--json'], {
    encoding: 'utf8',
  });
  if (r.status === 3) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

const a = await startSim(engine(1));
const b = await startSim(engine(1.15));
const specA = spec(a.origin);
const specB = spec(b.origin);
const tally = { aa: { pass: 0, fail: 0, inconclusive: 0 }, ab: { pass: 0, fail: 0, inconclusive: 0 } };
const failedRules = { aa: {}, ab: {} };
const t0 = Date.now();
console.log(
  `loadgate bench:gate — ${RUNS} A/A and ${RUNS} A/B comparisons; ${RATE} req/s × ${WINDOW_S} s windows replayed ${K}× faster (${RATE * WINDOW_S} samples each)`,
);
try {
  let prevA = run(specA, 'a0');
  for (let i = 1; i <= RUNS; i++) {
    const bi = run(specB, `b${i}`);
    const ai = run(specA, `a${i}`);
    for (const [kind, base, cur] of [
      ['aa', prevA, ai],
      ['ab', prevA, bi],
    ]) {
      // The candidate's spec differs from the baseline's only in its URL, which comparability ignores.
      const report = compare(base, cur, specA);
      tally[kind][report.verdict]++;
      for (const rule of report.rules ?? []) if (rule.status === 'fail') failedRules[kind][rule.id] = (failedRules[kind][rule.id] ?? 0) + 1;
    }
    prevA = ai;
    if (i % 10 === 0 || i === RUNS) {
      const pct = (n) => `${((100 * n) / i).toFixed(1)} %`;
      console.log(
        `${i} pairs (${((Date.now() - t0) / 60000).toFixed(1)} min): A/A false failures ${pct(tally.aa.fail)} (inconclusive ${pct(tally.aa.inconclusive)}) · A/B detections ${pct(tally.ab.fail)} (inconclusive ${pct(tally.ab.inconclusive)})`,
      );
    }
  }
} finally {
  a.stop();
  b.stop();
}
console.log(`rules that failed — A/A: ${JSON.stringify(failedRules.aa)} · A/B: ${JSON.stringify(failedRules.ab)}`);
console.log(
  `false-failure rate ${((100 * tally.aa.fail) / RUNS).toFixed(1)} % (target ≤ 1 %) · detection rate of a 15 % slowdown ${((100 * tally.ab.fail) / RUNS).toFixed(1)} % (target ≥ 95 %)`,
);
