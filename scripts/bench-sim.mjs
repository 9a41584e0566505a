#!/usr/bin/env node
// How fast is the simulator itself? Starts dist/sim.js (fast mode unless --config-json says
// otherwise), pinned to one core with taskset when available, drives it from this process
// with many concurrent keep-alive streams of 64-token requests, and prints requests/s,
// tokens/s and the sim's CPU use. Prints figures only; never asserts. Run after bundling:
//   node scripts/bundle.mjs && node scripts/bench-sim.mjs [--seconds 5] [--concurrency 64]
//     [--tokens 64] [--api chat|completions] [--cpu 1] [--config-json '{"mode":"fast"}']
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { canPin, startSim } from './sim-process.mjs';
import { Pool } from 'undici';

const { values: opt } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '64' },
    tokens: { type: 'string', default: '64' },
    api: { type: 'string', default: 'chat' },
    cpu: { type: 'string', default: '1' },
    'config-json': { type: 'string', default: '{"mode":"fast"}' },
  },
});
const seconds = Number(opt.seconds);
const concurrency = Number(opt.concurrency);
const tokens = Number(opt.tokens);

const sim = await startSim(JSON.parse(opt['config-json']), { cpus: opt.cpu });
const origin = sim.origin;
if (canPin) {
  // Keep the driver off the sim's core where there is another one to use.
  const others = Array.from({ length: availableParallelism() }, (_, i) => i).filter((i) => String(i) !== opt.cpu);
  if (others.length) spawnSync('taskset', ['-apc', others.join(','), String(process.pid)]); // -a: every thread
}

const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
const path = opt.api === 'chat' ? '/v1/chat/completions' : '/v1/completions';
const prompt = 'benchmark the simulator with a short prompt of sixteen words so that parsing stays cheap here';
const body = JSON.stringify({
  model: 'sim-8b',
  ...(opt.api === 'chat' ? { messages: [{ role: 'user', content: prompt }] } : { prompt }),
  max_tokens: tokens,
  ignore_eos: true,
  stream: true,
  stream_options: { include_usage: true },
});
const TOKEN = Buffer.from('" tok"');

let counting = false;
let done = 0;
let tokenCount = 0;
let errors = 0;
let stop = false;

async function stream() {
  while (!stop) {
    try {
      const res = await pool.request({ path, method: 'POST', body, headers: { 'content-type': 'application/json' } });
      let n = 0;
      for await (const chunk of res.body) {
        for (let i = chunk.indexOf(TOKEN); i >= 0; i = chunk.indexOf(TOKEN, i + TOKEN.length)) n++;
      }
      if (!counting) continue;
      if (res.statusCode !== 200) errors++;
      done++;
      tokenCount += n;
    } catch {
      if (counting) errors++;
    }
  }
}

async function simCpuSeconds() {
  const res = await pool.request({ path: '/metrics', method: 'GET' });
  return Number(/^process_cpu_seconds_total (\S+)$/m.exec(await res.body.text())[1]);
}

const workers = Array.from({ length: concurrency }, stream);
await new Promise((r) => setTimeout(r, Number(opt.warmup) * 1000));
const cpu0 = await simCpuSeconds();
const t0 = performance.now();
const driver0 = process.cpuUsage();
counting = true;
await new Promise((r) => setTimeout(r, seconds * 1000));
counting = false;
const wall = (performance.now() - t0) / 1000;
const simCpu = (await simCpuSeconds()) - cpu0;
const driverCpu = process.cpuUsage(driver0);
stop = true;
await Promise.all(workers);
await pool.close();
sim.stop();

const fmt = (x) => Math.round(x).toLocaleString('en-US');
const simShare = simCpu / wall;
console.log(
  `loadgate sim benchmark: ${opt['config-json']}, ${tokens}-token streaming ${opt.api} requests, ${concurrency} concurrent, ${seconds} s`,
);
console.log(
  canPin
    ? `sim pinned to CPU ${opt.cpu} with taskset; driver (this process) on the other CPUs`
    : 'taskset not found: sim and driver are not pinned',
);
console.log(`served:     ${fmt(done / wall)} requests/s, ${fmt(tokenCount / wall)} tokens/s (${fmt(done)} requests, ${errors} errors)`);
console.log(`sim CPU:    ${(simShare * 100).toFixed(0)} % of one core → ${fmt(done / wall / simShare)} requests/s per fully used core`);
console.log(`driver CPU: ${(((driverCpu.user + driverCpu.system) / 1e6 / wall) * 100).toFixed(0)} % of one core`);
if (simShare < 0.9)
  console.log('note: the sim was not saturated; the driver (or the machine) limited the rate, so the per-core figure is a projection');
