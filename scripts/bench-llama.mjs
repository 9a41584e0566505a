#!/usr/bin/env node
// `loadgate sweep` against a real engine: llama.cpp on the CPU (node-llama-cpp's prebuilt build,
// installed by scripts/install-node-llama-cpp.sh) serving a random-weight llama model written at
// run time (test/fixtures/gguf.mjs) through test/fixtures/llama-server.mjs: 8 sequences batched
// in one context, one thread, pinned to the last CPU when taskset exists. Prints the machine,
// the engine's service time one request at a time, the sweep's own report, then the knee,
// saturation and capacity at SLO with their ranges. Asserts nothing.
//
//   npm run bench:llama                               # 128 in / 64 out, 15 s windows: ~5 min
//   node scripts/bench-llama.mjs --window 8 --input 64 --output 32   # quicker, rougher
//
// The SLO is set from the measured service time, so the capacity at SLO lies below saturation
// on any machine: a request is good when its TTFT ≤ 5 × the lone request's TTFT p50 and its
// E2E ≤ 5 × the lone request's E2E p50 (an engine without chunked prefill stalls every decode
// for each newcomer's prefill, so even light open-loop load doubles a request's E2E).
// --keep DIR keeps the spec, the sweep document and its HTML report there.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeTinyLlama } from '../test/fixtures/gguf.mjs';
import { llamaUnavailable } from '../test/fixtures/llama-server.mjs';
import { ENGINE_CPU, LOADGATE, loadAverage, machine, serviceTime, specHead, startEngine } from './llama-bench.mjs';
import { canPin } from './sim-process.mjs';

const { values: opt } = parseArgs({
  options: {
    window: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '3' },
    input: { type: 'string', default: '128' },
    output: { type: 'string', default: '64' },
    metric: { type: 'string', default: 'ttft' },
    slots: { type: 'string', default: '8' },
    threads: { type: 'string', default: '1' },
    keep: { type: 'string' },
  },
});

const lengths = { input: opt.input, output: opt.output };

function sweepSpec(url, floor) {
  const ttftSlo = Math.ceil(5 * floor.ttft);
  const e2eSlo = Math.ceil(5 * floor.e2e);
  return `${specHead(url, 'llama-sweep', lengths)}load: { warmup: ${opt.warmup}s, steady: ${opt.window}s, cooldown: 0s }
slo: { ttft_ms: ${ttftSlo}, e2e_ms: ${e2eSlo} }
sweep:
  auto: { growth: 2 }
  metric: ${opt.metric}
  slo_target: 0.95
  bisect: { precision: 0.05, max_points: 3, knee_points: 2, repeat_points: 2 }
sizing: { batch_slots: ${opt.slots} }
`;
}

const fmt = (x, unit = 'req/s') => (x == null ? 'none' : `${Number(x.toPrecision(4))} ${unit}`);
const range = (r) =>
  r
    ? `between ${r.lower == null ? '?' : Number(r.lower.toPrecision(4))} and ${r.upper == null ? '?' : Number(r.upper.toPrecision(4))} req/s`
    : 'no range';

function summary(doc, floor, seconds) {
  const a = doc.analysis;
  return [
    `service time one at a time: TTFT p50 ${floor.ttft.toFixed(1)} ms, TPOT p50 ${floor.tpot.toFixed(2)} ms, E2E p50 ${floor.e2e.toFixed(1)} ms (${floor.requests} requests)`,
    `points measured ${doc.points.length} in ${seconds.toFixed(0)} s`,
    `S (${a.metric})          ${fmt(a.service_floor_ms, 'ms')}`,
    `knee            ${fmt(a.knee.rate_per_s)}, ${range(a.knee.range)}${a.knee.note ? ` (${a.knee.note})` : ''}`,
    `saturation      ${fmt(a.saturation.requests_per_s)}, ${a.saturation.range ? range(a.saturation.range) : 'no range'}${a.saturation.reached ? '' : ' (not reached: a lower bound)'}`,
    `capacity at SLO ${fmt(a.capacity_at_slo.rate_per_s)}, ${range(a.capacity_at_slo.range)} (goodput ≥ ${a.capacity_at_slo.target * 100} %)`,
  ].join('\n');
}

async function main() {
  const why = llamaUnavailable();
  if (why) {
    console.error(`bench:llama: ${why}`);
    process.exit(1);
  }
  console.log(machine());
  const dir = opt.keep ?? mkdtempSync(join(tmpdir(), 'loadgate-bench-llama-'));
  mkdirSync(dir, { recursive: true });
  const model = writeTinyLlama(join(dir, 'tiny-llama.gguf'), { seed: 1 });
  const d = model.dims;
  console.log(
    `model: random-weight llama, ${d.layers} layers × ${d.embedding} embedding, ${d.heads} heads, ${d.feedForward} feed-forward, vocabulary ${model.vocabSize}, F16, ${(model.bytes / 2 ** 20).toFixed(0)} MiB`,
  );
  const server = await startEngine(join(dir, 'tiny-llama.gguf'), { slots: opt.slots, threads: opt.threads });
  try {
    console.log(
      `engine: ${server.info.slots} sequences, ${server.info.threads} thread${canPin ? ` pinned to cpu ${ENGINE_CPU}` : ''}, context ${server.info.context} tokens, at ${server.url}`,
    );
    const floor = serviceTime(server.url, dir, lengths);
    const spec = join(dir, 'sweep.yml');
    writeFileSync(spec, sweepSpec(server.url, floor));
    console.log(`\nspec (${spec}):\n${readFileSync(spec, 'utf8')}`);
    const start = Date.now();
    const sweep = spawnSync(
      process.execPath,
      [LOADGATE, 'sweep', spec, '--out', join(dir, 'sweep.json'), '--html', join(dir, 'sweep.html')],
      { stdio: 'inherit' },
    );
    const seconds = (Date.now() - start) / 1000;
    if (sweep.status === 3) throw new Error('loadgate sweep failed (exit 3)');
    const records = await server.records();
    const short = records.filter((r) => r.finish === 'length' && r.completion_tokens !== Number(opt.output)).length;
    console.log(`\n${summary(JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')), floor, seconds)}`);
    console.log(`server: ${records.length} requests, ${short} finished with other than ${opt.output} tokens`);
    // Other work on the machine slows the engine's every step: a load average well above the two
    // processes' own (~1.5) at the end means the later points were measured on a busy machine.
    console.log(`load average at the end ${loadAverage()}`);
  } finally {
    await server.stop();
    if (!opt.keep) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
