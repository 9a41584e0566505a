#!/usr/bin/env node
// How much does a real engine's run differ from the next? A/A runs of llama.cpp on the CPU
// (node-llama-cpp's prebuilt build, scripts/install-node-llama-cpp.sh) serving the random-weight
// model of test/fixtures/gguf.mjs: every run against a freshly started server (its own process,
// pinned to the last CPU when taskset exists), open-loop Poisson. Prints each run's judged
// percentiles, their between-run CV (scripts/spread.mjs: what gate.noise.assumed_cv stands for,
// and what the simulator's compute-bound preset's jitter.run_cv should produce), then the default
// gate's verdicts on consecutive runs and on every ordered pairing, for each assumed CV asked
// for: the pairings where a regression rule (against the baseline) failed, those where only an
// absolute SLO rule did, and the inconclusive ones. Asserts nothing.
//
//   node scripts/bench-llama-aa.mjs --rate 4                     # 12 runs of 60 s: ~15 min
//   node scripts/bench-llama-aa.mjs --rate 4 --keep DIR --assumed-cv 0.05,0.08,0.1
//   node scripts/bench-llama-aa.mjs --runs-dir DIR --assumed-cv 0.05,0.1   # judge kept runs again
//
// Without --rate the offered rate is --load (0.5) / the lone request's E2E p50. A p95 rule needs
// 200 window requests a run, so rate × window ≥ 200.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeTinyLlama } from '../test/fixtures/gguf.mjs';
import { llamaUnavailable } from '../test/fixtures/llama-server.mjs';
import { LOADGATE, loadAverage, machine, serviceTime, specHead, startEngine } from './llama-bench.mjs';
import { SPREAD_FIGURES, spreadText } from './spread.mjs';

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
    // Judge with these gate.noise.assumed_cv values (comma-separated); the gate's default when unset.
    'assumed-cv': { type: 'string' },
    // Judge the runs a previous bench kept there (a0.json, a1.json, …) instead of running new ones.
    'runs-dir': { type: 'string' },
    keep: { type: 'string' },
  },
});

const lengths = { input: opt.input, output: opt.output };
const cli = (args) => spawnSync(process.execPath, [LOADGATE, ...args], { encoding: 'utf8' });

/** Starts a fresh engine, runs `specText(url)` written to `specPath` against it, stops it; returns the result's path. */
async function onFreshEngine(model, specPath, specText, out) {
  const server = await startEngine(model, { slots: opt.slots, threads: opt.threads });
  try {
    writeFileSync(specPath, specText(server.url));
    const r = cli(['run', specPath, '--out', out, '--workers', '1']);
    if (r.status === 3) throw new Error(`loadgate run failed: ${r.stderr.trim()}`);
    return out;
  } finally {
    await server.stop();
  }
}

/** The lone request's service time on a fresh engine, and the rate the runs are offered. */
async function offeredRate(model, dir) {
  const server = await startEngine(model, { slots: opt.slots, threads: opt.threads });
  try {
    const floor = serviceTime(server.url, dir, lengths);
    const rate = Number(opt.rate ?? ((Number(opt.load) * 1000) / floor.e2e).toFixed(3));
    console.log(
      `lone request: TTFT p50 ${floor.ttft.toFixed(1)} ms, TPOT p50 ${floor.tpot.toFixed(2)} ms, E2E p50 ${floor.e2e.toFixed(0)} ms → ${rate} req/s offered`,
    );
    return rate;
  } finally {
    await server.stop();
  }
}

async function runAll(dir) {
  const model = join(dir, 'tiny-llama.gguf');
  writeTinyLlama(model, { seed: 1 });
  const rate = await offeredRate(model, dir);
  const text = (url) =>
    `${specHead(url, 'llama-aa', lengths)}load: { rate: ${rate}, arrival: poisson, warmup: ${opt.warmup}s, steady: ${opt.window}s, cooldown: 0s }\n`;
  const paths = [];
  for (let i = 0; i < Number(opt.runs); i++) paths.push(await onFreshEngine(model, join(dir, 'aa.yml'), text, join(dir, `a${i}.json`)));
  return paths;
}

/** The runs a previous bench kept in `dir`, in order. */
function keptRuns(dir) {
  const paths = [];
  for (let i = 0; existsSync(join(dir, `a${i}.json`)); i++) paths.push(join(dir, `a${i}.json`));
  if (paths.length < 2) throw new Error(`--runs-dir ${dir}: needs a0.json, a1.json, … from an earlier bench (--keep)`);
  return paths;
}

/** The rules that failed in `baseline` → `current` under the judging spec. */
function failedRules(spec, baseline, current) {
  const r = cli(['compare', baseline, current, '--spec', spec, '--json']);
  if (r.status === 3) throw new Error(r.stderr);
  const report = JSON.parse(r.stdout);
  return { verdict: report.verdict, failed: report.rules.filter((x) => x.status === 'fail') };
}

function tally(pairs) {
  const regression = pairs.filter((p) => p.failed.some((r) => r.kind === 'regression'));
  const rules = {};
  for (const p of regression) for (const r of p.failed) if (r.kind === 'regression') rules[r.id] = (rules[r.id] ?? 0) + 1;
  const which = Object.entries(rules)
    .map(([id, k]) => `${id.replace('latency.', '')} ${k}`)
    .join(', ');
  const sloOnly = pairs.filter((p) => p.failed.length > 0 && !p.failed.some((r) => r.kind === 'regression')).length;
  const inconclusive = pairs.filter((p) => p.verdict === 'inconclusive').length;
  return `${pairs.length} pairs: a regression rule failed in ${regression.length}${which ? ` (${which})` : ''}; only an SLO rule in ${sloOnly}; inconclusive ${inconclusive}`;
}

/** Each run against the one before, and every ordered pairing, judged with `assumedCv` (null: the gate's default). */
function judgeAll(paths, dir, assumedCv) {
  const base = readFileSync(join(dir, 'aa.yml'), 'utf8');
  const spec = join(dir, `judge-${assumedCv ?? 'default'}.yml`);
  writeFileSync(spec, assumedCv === null ? base : `${base}gate: { noise: { assumed_cv: ${assumedCv} } }\n`);
  const consecutive = paths.slice(1).map((p, i) => failedRules(spec, paths[i], p));
  const all = [];
  for (const a of paths) for (const b of paths) if (a !== b) all.push(failedRules(spec, a, b));
  const name = assumedCv === null ? 'the default gate' : `the default rules, gate.noise.assumed_cv ${assumedCv}`;
  console.log(`\n${name}, each run against the one before: ${tally(consecutive)}`);
  console.log(`${name}, every ordered pairing: ${tally(all)}`);
}

async function main() {
  const why = opt['runs-dir'] ? null : llamaUnavailable();
  if (why) {
    console.error(`bench-llama-aa: ${why}`);
    process.exit(1);
  }
  console.log(machine());
  const dir = opt['runs-dir'] ?? opt.keep ?? mkdtempSync(join(tmpdir(), 'loadgate-bench-llama-aa-'));
  mkdirSync(dir, { recursive: true });
  const paths = opt['runs-dir'] ? keptRuns(dir) : await runAll(dir);
  const metrics = paths.map((p) => JSON.parse(readFileSync(p, 'utf8')).metrics);
  metrics.forEach((m, i) =>
    console.log(
      `run ${i + 1}: ${m.ttft_ms.count} requests · ${SPREAD_FIGURES.map(([label, of]) => `${label} ${of(m).toFixed(2)}`).join(' · ')} ms`,
    ),
  );
  console.log(`\nbetween-run CV over the ${paths.length} runs: ${spreadText(metrics)}`);
  const assumed = opt['assumed-cv'] === undefined ? [null] : opt['assumed-cv'].split(',').map(Number);
  for (const c of assumed) judgeAll(paths, dir, c);
  console.log(`\nload average at the end ${loadAverage()}`);
  if (!opt.keep && !opt['runs-dir']) rmSync(dir, { recursive: true, force: true });
}

await main();
