// What the llama.cpp benches share: the machine line they open with, the spec head of a run
// against test/fixtures/llama-server.mjs, the engine started on the last CPU, and the engine's
// service time one request at a time.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { nodeLlamaCppVersion, spawnLlamaServer } from '../test/fixtures/llama-server.mjs';
import { canPin, root } from './sim-process.mjs';

export const LOADGATE = join(root, 'dist', 'cli.js');

export const loadAverage = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Date, commit, CPU, memory, load average and the engine's build: the lines a figure needs. */
export function machine() {
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
  return [
    `date ${new Date().toISOString()} · commit ${commit || 'unknown'}`,
    `cpu ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length} · ${(totalmem() / 2 ** 30).toFixed(0)} GiB · load average ${loadAverage()}`,
    `node ${process.version} · node-llama-cpp ${nodeLlamaCppVersion()} (prebuilt linux-x64 CPU build)`,
  ].join('\n');
}

/** The spec's name, target and workload for a run against the llama fixture at `url`. */
export const specHead = (url, name, { input, output }) => `name: ${name}
target: { url: ${url}, api: chat, model: tiny-llama, request_timeout: 60s, ready_timeout: 30s }
workload: { seed: 7, input_tokens: ${input}, output_tokens: ${output}, calibrate: auto }
`;

/** The last CPU, where the engine runs when taskset exists; loadgate keeps the others. */
export const ENGINE_CPU = String(cpus().length - 1);

/** The llama fixture serving `model` in a process of its own, pinned to ENGINE_CPU when it can be. */
export const startEngine = (model, { slots, threads }) =>
  spawnLlamaServer(['--model', model, '--slots', String(slots), '--threads', String(threads)], {
    taskset: canPin ? ENGINE_CPU : undefined,
  });

/** One request at a time for a few seconds: the engine's service time, as loadgate measures it. */
export function serviceTime(url, dir, lengths) {
  const spec = join(dir, 'floor.yml');
  writeFileSync(
    spec,
    `${specHead(url, 'llama-floor', lengths)}load: { mode: closed, concurrency: 1, warmup: 2s, steady: 6s, cooldown: 0s }\n`,
  );
  const run = spawnSync(process.execPath, [LOADGATE, 'run', spec, '--json', '--out', join(dir, 'floor.json')], { encoding: 'utf8' });
  if (run.status === 3 || !run.stdout) throw new Error(`the service-time run failed: ${run.stderr.trim()}`);
  const m = JSON.parse(run.stdout).metrics;
  return { ttft: m.ttft_ms.p50, e2e: m.e2e_ms.p50, tpot: m.tpot_ms.p50, requests: m.ttft_ms.count };
}
