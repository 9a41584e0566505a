#!/usr/bin/env node
// How much does a real engine's run differ from the next? A/A runs of llama.cpp on the CPU
// (node-llama-cpp's prebuilt build, scripts/install-node-llama-cpp.sh) serving the random-weight
// model of test/fixtures/gguf.mjs: every run against a freshly started server (its own process,
// pinned to the last CPU when taskset exists), open-loop Poisson at a fraction of the lone
// request's rate. Prints each run's judged percentiles, their between-run CV (what the gate's
// gate.noise.assumed_cv stands for, and what the simulator's compute-bound preset's
// jitter.run_cv should produce), the CV of each run's mean TPOT (the engine's own speed,
// nearly free of sampling noise), and the default gate's verdicts on consecutive runs and on
// every pairing. Asserts nothing.
//
//   node scripts/bench-llama-aa.mjs                              # 12 runs of 60 s: ~15 min
//   node scripts/bench-llama-aa.mjs --rate 4 --runs 6 --window 30   # quicker; p95 rules too few samples
//
// --load is the offered rate as a fraction of 1 / (lone request's E2E p50): 0.5 by default, about
// the share of saturation the simulator's gate bench offers its compute-bound preset; --rate R
// sets it in req/s instead. A p95 rule needs 200 window requests a run, so rate × window ≥ 200.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeTinyLlama } from '../test/fixtures/gguf.mjs';
import { llamaUnavailable, nodeLlamaCppVersion, spawnLlamaServer } from '../test/fixtures/llama-server.mjs';
import { canPin, root } from './sim-process.mjs';

const { values: opt } = parseArgs({
  options: {
    runs: { type: 'string', default: '12' },
    window: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '3' },
    load: { type: 'string', default: '0.5' },
    rate: { type: 'string' },
    input: { type: 'string', default: '128' },
    output: { type: 'string', default: '64' },
    slots: { type: 'string', default: '8' },
    threads: { type: 'string', default: '1' },
    keep: { type: 'string' },
  },
});

const LOADGATE = join(root, 'dist', 'cli.js');
const cli = (args) => spawnSync(process.execPath, [LOADGATE, ...args], { encoding: 'utf8' });
const JUDGED = [
  ['ttft', 'p95'],
  ['tpot', 'p50'],
  ['tpot', 'p95'],
  ['e2e', 'p95'],
];

const head = (url, name) => `name: ${name}
target: { url: ${url}, api: chat, model: tiny-llama, request_timeout: 60s, ready_timeout: 30s }
workload: { seed: 7, input_tokens: ${opt.input}, output_tokens: ${opt.output}, calibrate: auto }
`;

/** Runs `spec` against a freshly started engine; returns the result's path. */
async function onFreshEngine(model, spec, out) {
  const cpu = String(cpus().length - 1);
  const server = await spawnLlamaServer(['--model', model, '--slots', opt.slots, '--threads', opt.threads], {
    taskset: canPin ? cpu : undefined,
  });
  try {
    writeFileSync(spec.path, spec.text(server.url));
    const r = cli(['run', spec.path, '--out', out, '--workers', '1']);
    if (r.status === 3) throw new Error(`loadgate run failed: ${r.stderr.trim()}`);
    return out;
  } finally {
    await server.stop();
  }
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const cv = (xs) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)) / m;
};
const pct = (x) => `${(100 * x).toFixed(1)} %`;

function judge(dir, base, cur) {
  const r = cli(['compare', base, cur, '--spec', join(dir, 'aa.yml'), '--json']);
  if (r.status === 3) throw new Error(r.stderr);
  const v = JSON.parse(r.stdout);
  return { verdict: v.verdict, failed: v.rules.filter((x) => x.status === 'fail').map((x) => x.id) };
}

function tally(pairs) {
  const fails = pairs.filter((p) => p.verdict === 'fail');
  const rules = new Map();
  for (const p of fails) for (const id of p.failed) rules.set(id, (rules.get(id) ?? 0) + 1);
  const which = [...rules].map(([id, k]) => `${id.replace('latency.', '')} ${k}`).join(', ');
  const inconclusive = pairs.filter((p) => p.verdict === 'inconclusive').length;
  return `${pairs.length} pairs: ${fails.length} failed${which ? ` (${which})` : ''}, ${inconclusive} inconclusive`;
}

async function main() {
  const why = llamaUnavailable();
  if (why) {
    console.error(`bench-llama-aa: ${why}`);
    process.exit(1);
  }
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  console.log(`date ${new Date().toISOString()} · commit ${commit} · ${cpus()[0]?.model} × ${cpus().length} · node ${process.version}`);
  console.log(
    `node-llama-cpp ${nodeLlamaCppVersion()} · load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const dir = opt.keep ?? mkdtempSync(join(tmpdir(), 'loadgate-bench-llama-aa-'));
  mkdirSync(dir, { recursive: true });
  const model = join(dir, 'tiny-llama.gguf');
  writeTinyLlama(model, { seed: 1 });

  const floorSpec = {
    path: join(dir, 'floor.yml'),
    text: (url) => `${head(url, 'llama-floor')}load: { mode: closed, concurrency: 1, warmup: 2s, steady: 8s, cooldown: 0s }\n`,
  };
  const floor = JSON.parse(readFileSync(await onFreshEngine(model, floorSpec, join(dir, 'floor.json')), 'utf8')).metrics;
  const rate = Number(opt.rate ?? ((Number(opt.load) * 1000) / floor.e2e_ms.p50).toFixed(3));
  console.log(
    `lone request: TTFT p50 ${floor.ttft_ms.p50.toFixed(1)} ms, TPOT p50 ${floor.tpot_ms.p50.toFixed(2)} ms, E2E p50 ${floor.e2e_ms.p50.toFixed(0)} ms → ${rate} req/s offered`,
  );
  const spec = {
    path: join(dir, 'aa.yml'),
    text: (url) =>
      `${head(url, 'llama-aa')}load: { rate: ${rate}, arrival: poisson, warmup: ${opt.warmup}s, steady: ${opt.window}s, cooldown: 0s }\n`,
  };

  const runs = [];
  for (let i = 0; i < Number(opt.runs); i++) {
    const path = await onFreshEngine(model, spec, join(dir, `a${i}.json`));
    const m = JSON.parse(readFileSync(path, 'utf8')).metrics;
    const row = { path, mean_tpot: m.tpot_ms.mean, n: m.ttft_ms.count };
    for (const [k, p] of JUDGED) row[`${k}_${p}`] = m[`${k}_ms`][p];
    runs.push(row);
    console.log(
      `run ${i + 1}: ${row.n} requests · ${JUDGED.map(([k, p]) => `${k} ${p} ${row[`${k}_${p}`].toFixed(1)}`).join(' · ')} · mean TPOT ${row.mean_tpot.toFixed(2)} ms`,
    );
  }

  console.log('\nbetween-run CV (sample SD / mean over the runs):');
  for (const [k, p] of JUDGED) console.log(`  ${k} ${p}: ${pct(cv(runs.map((r) => r[`${k}_${p}`])))}`);
  console.log(`  mean TPOT (the engine's speed): ${pct(cv(runs.map((r) => r.mean_tpot)))}`);

  const consecutive = runs.slice(1).map((r, i) => judge(dir, runs[i].path, r.path));
  const all = [];
  for (let i = 0; i < runs.length; i++) for (let j = 0; j < runs.length; j++) if (i !== j) all.push(judge(dir, runs[i].path, runs[j].path));
  console.log(`\ndefault gate, each run against the one before: ${tally(consecutive)}`);
  console.log(`default gate, every ordered pairing: ${tally(all)}`);
  console.log(
    `load average at the end ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  if (!opt.keep) rmSync(dir, { recursive: true, force: true });
}

await main();
