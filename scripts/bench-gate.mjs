#!/usr/bin/env node
// How good is the gate? Prints figures; asserts nothing. Its modes:
//
// --mode quiet (default): A/A: two runs of the same simulator and config are compared with the
//   default rules; any "fail" is a false failure. A/B: the candidate simulator is 15 % slower
//   (slowdown 1.15); a "fail" is a detection. Runs alternate between A and B so drift of the
//   machine hits both. Time scaling: a 60 s window at 15 req/s (900 samples) is replayed k times
//   faster — the simulator's compute times divided by k, the rate multiplied by k, and the gate's
//   absolute floors divided by k — which keeps the queueing dynamics, the sample count and the
//   rules' meaning. The default k = 4 keeps the generator (at 60 req/s) inside its limits.
//
// --mode noisy: the quick start's own spec (examples/quickstart.yml, embedded
//   simulator) while a separate process keeps one core busy; A/B is the same spec with the
//   simulator 15 % slower. Targets: ≤ 1 % false fails, ≤ 5 % inconclusive, ≥ 95 % detection.
//
// --mode slowdown: every run's simulator gets its own seeded slowdown factor,
//   lognormal with CV --cv (default 10 %): between-run variance like a real engine's. Each round
//   runs one A and one B (30 % slower on top). The pool is judged under several setups of the
//   gate (SETUPS below): the bootstrap alone with single runs ("before"), and the new noise model
//   with a nightly 3-replicate baseline against one PR run, then with a calibration file written
//   by `loadgate calibrate --from` over --calibration-runs more A runs, then with replicates on
//   both sides. Rolling windows over the pool make the sides. Targets: ≤ 2 % false fails on A/A,
//   ≥ 90 % detection; prints the minimal detectable effect left and why rules were inconclusive.
//
// --mode compute-bound: the simulator's real-engine-like preset (src/sim/compute-bound.ts: 8 slots,
//   gap = base·(1 + α(n − 1)), per-step and per-request jitter) in real time, 16 output tokens so
//   a lone request's TTFT is ~30 ms and its TPOT ~3.5 ms; every run a fresh simulator with its own
//   seed, so jitter.run_cv (--cv, default 5 %) gives it its own run-to-run factor. Each round runs
//   one A and one B (slowdown 1.3), judged by the default gate, whose latency floors are what the
//   runs resolve (src/gate/floors.ts): against the last A run alone, and against the three A runs
//   before it merged as the nightly workflow's replicates. Targets: ≤ 1 % false fails, detection
//   of the 30 % slowdown. --runs-dir judges the runs a previous bench kept (its folder, printed),
//   --assumed-cv with another gate.noise.assumed_cv; prints the A runs' between-run CVs.
//
// --mode amplification: how much the compute-bound engine's loaded percentiles move when the
//   engine is 5 % and 30 % slower (the same seed, no run factor), the queueing amplification that
//   spreads A/A runs and makes a slowdown stand out.
//
// Every judging mode prints, per rule, the detection rate the gate predicted for the A/B pairs (from each
// comparison's noise interval and the mean change observed: P = Φ((δ − T − h)/(h/z)), see
// src/gate/detectable.ts) beside the rate observed.
//
//   npm run bench:gate                                  # quiet, 100 + 100 comparisons (~1 h)
//   node scripts/bench-gate.mjs --runs 20               # a quicker, rougher estimate
//   node scripts/bench-gate.mjs --mode noisy --runs 8
//   node scripts/bench-gate.mjs --mode noisy --runs 30 --all-pairs   # + every pairing of the A runs
//   node scripts/bench-gate.mjs --mode slowdown --runs 25 --cv 0.1   # ~25 min
//   node scripts/bench-gate.mjs --mode slowdown --error-share 1000   # timing validity set aside
//   node scripts/bench-gate.mjs --mode compute-bound --runs 8        # ~10 min
//   node scripts/bench-gate.mjs --mode compute-bound --runs 150 --parallel 6   # ~40 min, as root
//   node scripts/bench-gate.mjs --mode compute-bound --runs-dir /tmp/loadgate-bench-gate-XXXX --all-pairs --pairs-span 12
//   node scripts/bench-gate.mjs --mode compute-bound --runs-dir /tmp/loadgate-bench-gate-XXXX --assumed-cv 0.1
//   node scripts/bench-gate.mjs --mode amplification                  # ~4 min
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse, stringify } from 'yaml';
import { inNetns, loopbackNamespaces, pinnedTo, root, startSim } from './sim-process.mjs';
import { SPREAD_FIGURES, spreadText } from './spread.mjs';

const { values: opt } = parseArgs({
  options: {
    mode: { type: 'string', default: 'quiet' },
    runs: { type: 'string' },
    scale: { type: 'string', default: '4' },
    cv: { type: 'string' },
    seed: { type: 'string', default: '1' },
    // gate.max_timestamp_error_share of the judging spec; a large value sets per-rule timing
    // validity aside, to study the noise model alone on a machine whose timing is poor.
    'error-share': { type: 'string', default: '0.25' },
    // --mode slowdown: A/A runs behind the calibration file.
    'calibration-runs': { type: 'string', default: '10' },
    // --mode quiet/noisy: after the consecutive pairs, also judge every other pairing of the A runs.
    'all-pairs': { type: 'boolean', default: false },
    // --mode compute-bound: judge the runs a previous bench kept in this folder instead of running new ones.
    'runs-dir': { type: 'string' },
    // --mode compute-bound: this many runs at once, each simulator and loadgate in a network
    // namespace of its own (same 127.0.0.1 URL, so one spec and one hash; needs root).
    parallel: { type: 'string', default: '1' },
    // --all-pairs: only pairings at most this many runs apart (every pairing of n runs is n²/2 comparisons).
    'pairs-span': { type: 'string' },
    // Comparisons judged at once (each its own process).
    judges: { type: 'string', default: '2' },
    // --mode compute-bound: judge with this gate.noise.assumed_cv instead of the default.
    'assumed-cv': { type: 'string' },
  },
});
const MODE = opt.mode;
if (!['quiet', 'noisy', 'slowdown', 'compute-bound', 'amplification'].includes(MODE))
  throw new Error(`--mode ${MODE}: expected quiet, noisy, slowdown, compute-bound or amplification`);
const RUNS = Number(opt.runs ?? (MODE === 'quiet' ? 100 : MODE === 'slowdown' ? 25 : 10));
const K = Number(opt.scale);
const CV = Number(opt.cv ?? (MODE === 'compute-bound' ? 0.05 : 0.1));
const RATE = 15;
const WINDOW_S = 60;
const SPAN = opt['pairs-span'] === undefined ? Infinity : Number(opt['pairs-span']);
const JUDGES = Math.max(1, Number(opt.judges));
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

/** The time-scaled spec against `origin`; `noise: false` turns the new noise model off (bootstrap only). */
function scaledSpec(origin, name, noise = true) {
  const path = join(dir, `spec-${name}.yml`);
  writeFileSync(
    path,
    `name: gate-bench
target: { url: "${origin}/v1", model: gate-bench }
workload: { seed: 7, input_tokens: { dist: normal, mean: 400, stddev: 100, min: 16, max: 1000 }, output_tokens: 64, calibrate: off }
load: { rate: ${RATE * K}, warmup: ${Math.max(1, Math.round(10 / K))}s, steady: ${(WINDOW_S / K).toFixed(3)}s, cooldown: 0s }
slo: { ttft_ms: ${500 / K}, tpot_ms: ${50 / K}, e2e_ms: ${10000 / K} }
gate:
  max_timestamp_error_share: ${Number(opt['error-share'])}
  noise: { segments: ${noise}, between_run: ${noise} }
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

/** examples/quickstart.yml as it is, or with its embedded simulator `slowdown` times slower. */
function quickstartSpec(slowdown) {
  const spec = parse(readFileSync(join(root, 'examples/quickstart.yml'), 'utf8'));
  if (slowdown !== 1) spec.target.sim = { ...spec.target.sim, slowdown };
  const path = join(dir, `quickstart-${slowdown}.yml`);
  writeFileSync(path, stringify(spec));
  return path;
}

const cli = (args) => spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { encoding: 'utf8' });

let n = 0;
function run(specPath) {
  const out = join(dir, `r${n++}.json`);
  const r = cli(['run', specPath, '--out', out, '--workers', '1']);
  if (r.status === 3) throw new Error(r.stderr);
  return out;
}

function compare(baseline, current, specPath, ...extra) {
  const r = cli(['compare', baseline, current, '--spec', specPath, '--json', ...extra]);
  if (r.status === 3) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

/**
 * The CLI in a process of its own, inside network namespace `netns` when given, so several run at
 * once; resolves with its stdout, rejects on an operational error (exit 3) or a signal.
 */
function cliAsync(args, netns) {
  const [cmd, argv] = inNetns(netns, [process.execPath, [join(root, 'dist/cli.js'), ...args]]);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.once('exit', (code) => (code === 3 || code === null ? reject(new Error(err)) : resolve(out)));
  });
}

/** `compare` in a process of its own, so several judge at once (--judges). */
const compareAsync = async (baseline, current, specPath) =>
  JSON.parse(await cliAsync(['compare', baseline, current, '--spec', specPath, '--json']));

/** `work(item, lane)` over `items`, at most `limit` at once; `lane` (0 … limit − 1) names the worker that took it. */
async function inParallel(items, limit, work) {
  let next = 0;
  const lane = async (_, k) => {
    while (next < items.length) await work(items[next++], k);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

function merge(paths) {
  const out = join(dir, `m${n++}.json`);
  const r = cli(['merge', ...paths, '--out', out]);
  if (r.status !== 0) throw new Error(r.stderr);
  return out;
}

/** Φ(x) (Numerical Recipes' erfc fit), as src/metrics/stats.ts normalCdf. */
function normalCdf(x) {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const poly = [1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277];
  const erfc = t * Math.exp(-z * z - 1.26551223 + t * poly.reduceRight((acc, c) => c + t * acc, 0));
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}
const Z = 1.6448536269514722; // Φ⁻¹(0.95), the default confidence

/** Why a rule was inconclusive, in a word: the cause its reason opens with. */
function undecidedCause(reason) {
  if (reason.startsWith('the environment is unstable')) return 'unstable';
  if (reason.startsWith('not judgeable at this timing precision')) return 'timing';
  if (reason.startsWith('too few samples')) return 'samples';
  return reason.split(/[:;(]/)[0].slice(0, 40);
}

/** Tally of verdicts, failed rules, and each A/B rule's interval for the predicted detection rate. */
class Tally {
  constructor(label) {
    this.label = label;
    this.count = 0;
    this.verdicts = { pass: 0, fail: 0, inconclusive: 0 };
    this.failed = {};
    this.rules = {};
    this.mde = {};
    this.undecided = {};
    this.regressionFails = 0;
  }
  add(report) {
    this.count++;
    this.verdicts[report.verdict]++;
    // A verdict can fail on an absolute SLO (goodput, a latency limit) with no baseline at all:
    // what the noise model is for is the regression rules, counted apart.
    if ((report.rules ?? []).some((r) => r.kind === 'regression' && r.status === 'fail')) this.regressionFails++;
    for (const r of report.rules ?? []) {
      if (r.status === 'fail') this.failed[r.id] = (this.failed[r.id] ?? 0) + 1;
      if (r.status === 'inconclusive') {
        const why = `${r.id}: ${undecidedCause(r.reason)}`;
        this.undecided[why] = (this.undecided[why] ?? 0) + 1;
      }
      if (r.kind !== 'regression' || !r.ci || !r.change || r.threshold === null) continue;
      (this.rules[r.id] ??= []).push({
        change: r.change.abs,
        threshold: r.threshold,
        half: r.change.abs - r.ci.lower,
        fail: r.status === 'fail',
      });
      if (r.mde?.rel != null) (this.mde[r.id] ??= []).push(r.mde.rel);
    }
  }
  /** `n` of the comparisons, as a percentage. */
  share(n) {
    return `${((100 * n) / Math.max(1, this.count)).toFixed(1)} %`;
  }
  pct(k) {
    return this.share(this.verdicts[k]);
  }
  /** Share of comparisons where a regression rule (against the baseline) failed. */
  regressionPct() {
    return this.share(this.regressionFails);
  }
  /** Per latency rule: predicted vs observed failure rate, taking the mean observed change as the true one. */
  predicted() {
    return Object.entries(this.rules)
      .filter(([id]) => id.startsWith('latency.'))
      .map(([id, xs]) => {
        const delta = xs.reduce((a, x) => a + x.change, 0) / xs.length;
        const p =
          xs.reduce(
            (a, x) => a + (x.half > 0 ? normalCdf((delta - x.threshold - x.half) / (x.half / Z)) : delta > x.threshold ? 1 : 0),
            0,
          ) / xs.length;
        const observed = xs.filter((x) => x.fail).length / xs.length;
        return `${id} predicted ${(100 * p).toFixed(0)} % / observed ${(100 * observed).toFixed(0)} %`;
      })
      .join(' · ');
  }
  medianMde() {
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    return Object.entries(this.mde)
      .filter(([id]) => id.startsWith('latency.'))
      .map(([id, xs]) => `${id.slice(8)} ≥ +${(100 * med(xs)).toFixed(0)} %`)
      .join(', ');
  }
}

const t0 = Date.now();
const minutes = () => `${((Date.now() - t0) / 60000).toFixed(1)} min`;
const lognormal = (() => {
  // Seeded (mulberry32) normal draws by Box–Muller; σ of the log from the CV: σ² = ln(1 + cv²).
  let s = Number(opt.seed) >>> 0;
  const u = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const sigma = Math.sqrt(Math.log(1 + CV * CV));
  return () => Math.exp(sigma * Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u()) - (sigma * sigma) / 2);
})();

async function quietOrNoisy() {
  let busy;
  let stopSims = () => {};
  let specA;
  let specB;
  if (MODE === 'noisy') {
    // A separate process spinning one core, bounded in time so it can never outlive the bench.
    const boundMs = (RUNS * 2 + 2) * 90_000;
    const [cmd, args] = pinnedTo(1, [process.execPath, '-e', `const end = Date.now() + ${boundMs}; while (Date.now() < end) {}`]);
    busy = spawn(cmd, args, { stdio: 'ignore' });
    specA = quickstartSpec(1);
    specB = quickstartSpec(1.15);
    console.log(
      `loadgate bench:gate --mode noisy — ${RUNS} A/A and ${RUNS} A/B pairs of examples/quickstart.yml (A/B: simulator 15 % slower) while process ${busy.pid} keeps one core busy`,
    );
  } else {
    const a = await startSim(engine(1));
    const b = await startSim(engine(1.15));
    stopSims = () => (a.stop(), b.stop());
    specA = scaledSpec(a.origin, 'a');
    specB = scaledSpec(b.origin, 'b');
    console.log(
      `loadgate bench:gate — ${RUNS} A/A and ${RUNS} A/B comparisons; ${RATE} req/s × ${WINDOW_S} s windows replayed ${K}× faster (${RATE * WINDOW_S} samples each)`,
    );
  }
  const aa = new Tally('A/A');
  const ab = new Tally('A/B');
  const runsA = [];
  try {
    let prevA = run(specA);
    runsA.push(prevA);
    for (let i = 1; i <= RUNS; i++) {
      const bi = run(specB);
      const ai = run(specA);
      runsA.push(ai);
      // The candidate's spec differs from the baseline's only in its URL or simulator, which comparability ignores.
      aa.add(compare(prevA, ai, specA));
      ab.add(compare(prevA, bi, specA));
      prevA = ai;
      if (i % 5 === 0 || i === RUNS)
        console.log(
          `${i} pairs (${minutes()}): A/A false failures ${aa.pct('fail')} (inconclusive ${aa.pct('inconclusive')}) · A/B detections ${ab.pct('fail')} (inconclusive ${ab.pct('inconclusive')})`,
        );
    }
  } finally {
    stopSims();
    busy?.kill('SIGTERM');
  }
  if (opt['all-pairs']) await allPairings(runsA, specA, aa);
  console.log(`rules that failed — A/A: ${JSON.stringify(aa.failed)} · A/B: ${JSON.stringify(ab.failed)}`);
  console.log(`why rules were inconclusive — A/A: ${JSON.stringify(aa.undecided)} · A/B: ${JSON.stringify(ab.undecided)}`);
  console.log(`A/B predicted vs observed detection per rule: ${ab.predicted()}`);
  console.log(`minimal detectable rise (median over A/A): ${aa.medianMde()}`);
  const target = MODE === 'noisy' ? ' (targets ≤ 1 % false fails, ≤ 5 % inconclusive, ≥ 95 % detection)' : ' (target ≤ 1 %, ≥ 95 %)';
  console.log(
    `false-failure rate ${aa.pct('fail')}, A/A inconclusive ${aa.pct('inconclusive')} · detection of a 15 % slowdown ${ab.pct('fail')} (by a regression rule ${ab.regressionPct()})${target}`,
  );
}

/**
 * --all-pairs: every pairing of the A runs that the consecutive pairs did not judge, earlier run
 * as the baseline. n runs give n(n − 1)/2 pairings from n − 1 independent ones: a false-fail
 * rate of 1 % needs some 300 clean comparisons to be bounded at 95 % (3/n, the rule of three),
 * which consecutive pairs would take hours to make. The pairings share runs, so they are not
 * independent trials: a run that is off fails against many others, and the tally shows that as
 * a cluster (printed per run), not as a rate a single pair would see. Comparing needs no load,
 * so this runs after the busy process is gone; the judgement is the same (the bootstrap is seeded).
 */
async function allPairings(runs, spec, consecutive) {
  const all = new Tally('A/A, every pairing');
  const failsPerRun = runs.map(() => 0);
  const pairs = [];
  // j = i + 1: a consecutive pair, judged already; --pairs-span bounds j − i (all pairings grow as n²).
  for (let i = 0; i < runs.length; i++) for (let j = i + 2; j < runs.length && j - i <= SPAN; j++) pairs.push([i, j]);
  await inParallel(pairs, JUDGES, async ([i, j]) => {
    const report = await compareAsync(runs[i], runs[j], spec);
    all.add(report);
    if (report.verdict === 'fail') (failsPerRun[i]++, failsPerRun[j]++);
  });
  const n = all.count + consecutive.count;
  const fails = all.verdicts.fail + consecutive.verdicts.fail;
  const undecided = all.verdicts.inconclusive + consecutive.verdicts.inconclusive;
  const rate = (k) => `${k}/${n} (${((100 * k) / Math.max(1, n)).toFixed(1)} %)`;
  const bound =
    fails === 0
      ? ` · 0 of ${n} would bound the rate below 3/${n} = ${(300 / n).toFixed(1)} % at 95 % if the pairings were independent; they share runs, so the evidence is weaker`
      : '';
  console.log(
    `every pairing of the ${runs.length} A runs (${minutes()}): false failures ${rate(fails)}, inconclusive ${rate(undecided)}${bound}`,
  );
  if (all.verdicts.fail > 0)
    console.log(`failures per A run among those pairings (a run in many is an outlier): ${JSON.stringify(failsPerRun)}`);
  console.log(`why rules were inconclusive — every pairing: ${JSON.stringify(all.undecided)}`);
}

/**
 * The comparisons judged from one pool of runs, each a way to set up the gate: baseline and
 * current merged from `base` and `cur` runs, the new noise model on or off, with or without a
 * calibration file from CALIBRATION_RUNS A/A runs of their own.
 */
const SETUPS = [
  { name: 'bootstrap alone (before)', base: 1, cur: 1, noise: false, calibration: false },
  { name: '1 run vs a 3-replicate baseline', base: 3, cur: 1, noise: true, calibration: false },
  { name: '1 run vs 3 replicates + calibration', base: 3, cur: 1, noise: true, calibration: true },
  { name: '3 replicates vs 3 + calibration', base: 3, cur: 3, noise: true, calibration: true },
  { name: '5 replicates vs 5 + calibration', base: 5, cur: 5, noise: true, calibration: true },
];

/** Each setup's A/A and A/B tallies: one Markdown table row per setup, then its failed and inconclusive rules and its predicted detection. */
function printSetups(setups) {
  console.log(
    '| setup | pairs | A/A false fails | A/A inconclusive | detection of 30 % (verdict) | by a regression rule | A/B inconclusive | median MDE (A/A) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const t of setups)
    console.log(
      `| ${t.name} | ${t.aa.count} | ${t.aa.pct('fail')} | ${t.aa.pct('inconclusive')} | ${t.ab.pct('fail')} | ${t.ab.regressionPct()} | ${t.ab.pct('inconclusive')} | ${t.aa.medianMde()} |`,
    );
  for (const t of setups) {
    console.log(`${t.name} — rules that failed: A/A ${JSON.stringify(t.aa.failed)} · A/B ${JSON.stringify(t.ab.failed)}`);
    console.log(`${t.name} — why rules were inconclusive: A/A ${JSON.stringify(t.aa.undecided)} · A/B ${JSON.stringify(t.ab.undecided)}`);
    console.log(`${t.name} — A/B predicted vs observed detection per rule: ${t.ab.predicted()}`);
  }
}

async function slowdown() {
  const calibrationRuns = Number(opt['calibration-runs']);
  console.log(
    `loadgate bench:gate --mode slowdown — ${RUNS} rounds of one A and one B run; every run's simulator slowed by its own lognormal factor (CV ${(CV * 100).toFixed(0)} %, seed ${opt.seed}); B 30 % slower on top; ${RATE} req/s × ${WINDOW_S} s replayed ${K}× faster; a calibration from ${calibrationRuns} more A runs`,
  );
  // Every run's simulator on the same port, so all runs share one spec (and its hash): they merge as replicates.
  let port = 0;
  /** One run against a fresh simulator slowed by `factor`. */
  const runAt = async (factor) => {
    const sim = await startSim(engine(factor), { port });
    port = Number(new URL(sim.origin).port);
    try {
      return run(scaledSpec(sim.origin, 'slowdown'));
    } finally {
      await sim.stopped();
    }
  };
  // Comparisons only read the URL-free parts of the spec: any run's spec judges, with or without the new model.
  const judgeWith = scaledSpec('http://127.0.0.1:9', 'with');
  const judgeWithout = scaledSpec('http://127.0.0.1:9', 'without', false);
  const factors = [];
  const draw = () => {
    const f = lognormal();
    factors.push(f);
    return f;
  };
  const calRuns = [];
  for (let k = 0; k < calibrationRuns; k++) calRuns.push(await runAt(draw()));
  const calibration = join(dir, 'calibration.json');
  const cal = cli(['calibrate', '--from', ...calRuns, '--out', calibration]);
  if (cal.status !== 0) throw new Error(cal.stderr);
  console.log(cal.stdout.trim().split('\n')[0]);

  const tallies = SETUPS.map((setup) => ({ setup, aa: new Tally('A/A'), ab: new Tally('A/B') }));
  const as = [];
  const bs = [];
  /** The merged side of `runs` (one run stays as it is). */
  const side = (runs) => (runs.length === 1 ? runs[0] : merge(runs));
  for (let i = 1; i <= RUNS; i++) {
    as.push(await runAt(draw()));
    bs.push(await runAt(draw() * 1.3));
    for (const t of tallies) {
      const { base, cur } = t.setup;
      // Rolling windows: the newest `cur` runs are the current side, the `base` A runs before them the baseline.
      if (as.length < base + cur || bs.length < cur) continue;
      const baseline = side(as.slice(as.length - cur - base, as.length - cur));
      const args = t.setup.noise ? [judgeWith, ...(t.setup.calibration ? ['--calibration', calibration] : [])] : [judgeWithout];
      t.aa.add(compare(baseline, side(as.slice(-cur)), ...args));
      t.ab.add(compare(baseline, side(bs.slice(-cur)), ...args));
    }
    if (i % 5 === 0 || i === RUNS)
      for (const t of tallies)
        if (t.aa.count > 0)
          console.log(
            `${i} rounds (${minutes()}) ${t.setup.name}: A/A false failures ${t.aa.pct('fail')} (inconclusive ${t.aa.pct('inconclusive')}) · A/B detections ${t.ab.pct('fail')} (inconclusive ${t.ab.pct('inconclusive')}) over ${t.aa.count} pairs`,
          );
  }
  const mean = factors.reduce((a, b) => a + b, 0) / factors.length;
  const sd = Math.sqrt(factors.reduce((a, b) => a + (b - mean) ** 2, 0) / (factors.length - 1));
  console.log(`slowdown factors drawn: ${factors.length}, CV ${((100 * sd) / mean).toFixed(1)} %`);
  console.log('Consecutive pairs share runs (rolling windows), so the rates are averages over overlapping trials.');
  printSetups(tallies.map((t) => ({ name: t.setup.name, aa: t.aa, ab: t.ab })));
  console.log('Targets: ≤ 2 % false fails on A/A at CV 10 %, ≥ 90 % detection of a 30 % regression.');
}

/** The compute-bound preset in real time, its run factor drawn from `seed` (jitter.run_cv = --cv). */
const computeBoundEngine = (seed, slowdown) => ({
  preset: 'compute-bound',
  model: 'gate-bench',
  seed,
  output_tokens: { dist: 'fixed', value: 16 },
  jitter: { step_cv: 0.1, request_cv: 0.2, run_cv: CV },
  slowdown,
});

/** Default gate, real time: 10 req/s (about half of the preset's 19 req/s at 16 output tokens) × 30 s. */
function computeBoundSpec(origin) {
  const path = join(dir, 'spec-compute-bound.yml');
  writeFileSync(
    path,
    `name: gate-bench-compute-bound
target: { url: "${origin}/v1", model: gate-bench }
workload: { seed: 7, input_tokens: 128, output_tokens: 16, calibrate: off }
load: { rate: 10, warmup: 3s, steady: 30s, cooldown: 0s }
slo: { ttft_ms: 500, tpot_ms: 50, e2e_ms: 10000 }
${opt['assumed-cv'] === undefined ? '' : `gate: { noise: { assumed_cv: ${Number(opt['assumed-cv'])} } }\n`}`,
  );
  return path;
}

/** The simulator's port inside each namespace (--parallel > 1): every namespace has its own 127.0.0.1. */
const NETNS_PORT = 8400;

/**
 * The compute-bound mode's runs: the first A, then one B and one A per round, every run a fresh
 * simulator with its own seed (run t has seed t + 1). Written as r0.json, r1.json, … in that
 * order into the bench's folder, so `--runs-dir` can judge them again (A: r0 and every even
 * file, B: every odd one). With --parallel P, P runs at a time, each in its own namespace.
 */
async function computeBoundRuns() {
  const parallel = Math.max(1, Number(opt.parallel));
  const namespaces = parallel > 1 ? loopbackNamespaces(parallel) : [undefined];
  const total = 2 * RUNS + 1;
  const files = new Array(total);
  let port = 0;
  let done = 0;
  // One spec file for every namespace (the same URL in each), written before any run reads it.
  const shared = parallel > 1 ? computeBoundSpec(`http://127.0.0.1:${NETNS_PORT}`) : null;
  const runTask = async (t, netns) => {
    const slowdown = t % 2 === 1 ? 1.3 : 1;
    const sim = await startSim(computeBoundEngine(t + 1, slowdown), { port: netns ? NETNS_PORT : port, netns });
    if (!netns) port = Number(new URL(sim.origin).port);
    try {
      const out = join(dir, `r${t}.json`);
      await cliAsync(['run', shared ?? computeBoundSpec(sim.origin), '--out', out, '--workers', '1'], netns);
      files[t] = out;
    } finally {
      await sim.stopped();
    }
    if (++done % 10 === 0 || done === total) console.log(`${done} of ${total} runs (${minutes()})`);
  };
  await inParallel(
    Array.from({ length: total }, (_, t) => t),
    namespaces.length,
    (t, lane) => runTask(t, namespaces[lane]),
  );
  return { runsA: files.filter((_, t) => t % 2 === 0), runsB: files.filter((_, t) => t % 2 === 1) };
}

/** A folder of a previous compute-bound bench's runs, in the order computeBoundRuns wrote them. */
function savedComputeBoundRuns(folder) {
  const files = readdirSync(folder)
    .map((f) => /^r(\d+)\.json$/.exec(f))
    .filter(Boolean)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => join(folder, m[0]));
  const runsA = files.filter((_, i) => i % 2 === 0);
  const runsB = files.filter((_, i) => i % 2 === 1).slice(0, runsA.length - 1); // a B with no A after it ends no round
  return { runsA, runsB };
}

/**
 * Each round judged two ways, under the default gate (its derived floors) and the default noise
 * model: the PR run against the last A run alone (bootstrap alone: a single baseline run carries
 * no between-run spread), and against the three A runs before it merged as replicates, as the
 * nightly workflow records its baseline (examples/workflows/nightly.yml: replicates: 3), whose
 * spread judges the single run (src/gate/noise.ts).
 */
async function computeBound() {
  const from = opt['runs-dir'];
  console.log(
    `loadgate bench:gate --mode compute-bound — ${from ? `the runs kept in ${from}` : `${RUNS} rounds of one A and one B run`} (B: slowdown 1.3) of the compute-bound simulator, every run a fresh simulator with its own seed (run-to-run CV ${(CV * 100).toFixed(0)} %); 10 req/s × 30 s; default gate${opt['assumed-cv'] === undefined ? '' : ` but gate.noise.assumed_cv ${opt['assumed-cv']}`}`,
  );
  if (!from) console.log(`runs kept in ${dir}`);
  const { runsA, runsB } = from ? savedComputeBoundRuns(from) : await computeBoundRuns();
  const spec = computeBoundSpec('http://127.0.0.1:9');
  const setups = [
    { name: '1 run vs 1 run', base: 1 },
    { name: '1 run vs a 3-replicate baseline', base: 3 },
  ].map((setup) => ({ ...setup, aa: new Tally('A/A'), ab: new Tally('A/B') }));
  const judged = [];
  for (let i = 1; i < runsA.length; i++)
    for (const t of setups) {
      if (i < t.base) continue;
      const before = runsA.slice(i - t.base, i);
      const baseline = before.length === 1 ? before[0] : merge(before);
      judged.push([t.aa, baseline, runsA[i]], [t.ab, baseline, runsB[i - 1]]);
    }
  await inParallel(judged, JUDGES, async ([tally, baseline, current]) => tally.add(await compareAsync(baseline, current, spec)));
  console.log(`${runsA.length} A runs, ${runsB.length} B runs (${minutes()})`);
  const metricsA = runsA.map((p) => JSON.parse(readFileSync(p, 'utf8')).metrics);
  console.log(`between-run CV over the A runs (scripts/bench-llama-aa.mjs prints the same for llama.cpp): ${spreadText(metricsA)}`);
  printSetups(setups);
  if (opt['all-pairs']) await allPairings(runsA, spec, setups[0].aa);
}

/**
 * How much a slowdown of the compute-bound engine moves its loaded percentiles: for two seeds,
 * runs at slowdown 1, 1.05 (a run-to-run factor's size) and 1.3 (the A/B slowdown) with no
 * run factor, so the same seed gives the same arrivals and jitter and only the engine's speed
 * differs; prints each percentile's rise against slowdown 1.
 */
async function amplification() {
  console.log(
    'loadgate bench:gate --mode amplification — the compute-bound simulator at 10 req/s × 30 s, the same seed at slowdown 1, 1.05 and 1.3 (no run factor)',
  );
  for (const seed of [1, 2]) {
    const at = {};
    for (const slowdown of [1, 1.05, 1.3]) {
      const sim = await startSim({ ...computeBoundEngine(seed, slowdown), jitter: { step_cv: 0.1, request_cv: 0.2, run_cv: 0 } });
      try {
        const out = join(dir, `amp-${seed}-${slowdown}.json`);
        await cliAsync(['run', computeBoundSpec(sim.origin), '--out', out, '--workers', '1']);
        at[slowdown] = JSON.parse(readFileSync(out, 'utf8')).metrics;
      } finally {
        await sim.stopped();
      }
    }
    for (const slowdown of [1.05, 1.3]) {
      const rises = SPREAD_FIGURES.map(([label, of]) => `${label} ${(100 * (of(at[slowdown]) / of(at[1]) - 1)).toFixed(1)} %`);
      console.log(`seed ${seed}, slowdown ${slowdown} against 1: ${rises.join(', ')}`);
    }
  }
}

const MODES = { slowdown, 'compute-bound': computeBound, amplification, quiet: quietOrNoisy, noisy: quietOrNoisy };
await MODES[MODE]();
