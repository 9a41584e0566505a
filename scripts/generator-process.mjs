// Shared by the benchmark scripts: the real CLI (`dist/cli.js run`) as a load generator in its
// own process, pinned with taskset where it exists, and the simulator's ground truth to hold
// its timestamps against (joined per request through the x-request-id header the client sends).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pinnedTo, root } from './sim-process.mjs';

/** The JSON a server answers at `url`, then a DELETE there: what it recorded since the last call, and cleared. */
async function takeRecord(url) {
  const body = await (await fetch(url)).json();
  await fetch(url, { method: 'DELETE' });
  return body;
}

/** The simulator's own record of every request since the last call, by request id (and cleared). */
export async function groundTruth(origin) {
  const list = await takeRecord(`${origin}/sim/requests`);
  return new Map(list.map((r) => [r.id, r]));
}

/**
 * The paced server's record (scripts/paced-server.mjs), in groundTruth's shape, and cleared; its
 * own event-loop delay since the last call beside it.
 */
export async function pacedServerTruth(origin) {
  const { requests, loop_delay_ms } = await takeRecord(`${origin}/truth`);
  return Object.assign(new Map(requests.map((r) => [r.id, r])), { loopDelayMs: loop_delay_ms });
}

/** RSS in MB and user/system CPU seconds of a process, from /proc (Linux); null elsewhere. */
export function procStats(pid) {
  try {
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
    // Fields 14 and 15 of /proc/PID/stat, after the parenthesised command name; USER_HZ is 100 on Linux.
    const [utime, stime] = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .split(') ')[1]
      .split(' ')
      .slice(11, 13)
      .map((x) => Number(x) / 100);
    return { rss, utime, stime };
  } catch {
    return null;
  }
}

/**
 * Runs the CLI against `origin` at `rate` req/s of `tokens`-token streams; `rss` holds its
 * resident memory sampled from outside the process every second, `sysShare` the kernel's share
 * of its CPU time by the last sample (where the time goes). One generator thread gets core 0,
 * more threads get both cores (the paced sim needs little CPU).
 */
export async function runGenerator(
  origin,
  { dir, tokens, inputTokens = 16, rate, workers = 1, warmupS, steadyS, seed = 1, cli = join(root, 'dist/cli.js') },
) {
  const spec = join(dir, 'bench.yml');
  const records = join(dir, 'records.jsonl');
  writeFileSync(
    spec,
    `name: bench
target: { url: "${origin}/v1", model: bench, request_timeout: 30s }
workload: { seed: ${seed}, input_tokens: ${inputTokens}, output_tokens: ${tokens}, calibrate: off }
load: { rate: ${rate}, warmup: ${warmupS}s, steady: ${steadyS}s, cooldown: 1s }
`,
  );
  const [cmd, args] = pinnedTo(workers === 1 ? '0' : '0,1', [
    process.execPath,
    cli,
    'run',
    spec,
    '--json',
    '--records',
    records,
    '--out',
    join(dir, 'result.json'),
    '--workers',
    String(workers),
  ]);
  // taskset execs the command, so the child's pid is the generator's.
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const samples = [];
  const sampler = setInterval(() => samples.push(procStats(child.pid)), 1000);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.once('close', resolve));
  clearInterval(sampler);
  if (code === 3 || !stdout) throw new Error(`generator failed: ${stderr}`);
  const known = samples.filter((x) => x !== null);
  const last = known.at(-1);
  return {
    result: JSON.parse(stdout),
    records: readFileSync(records, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
    rss: known.map((x) => x.rss),
    sysShare: last ? last.stime / Math.max(1e-9, last.utime + last.stime) : NaN,
    pid: child.pid,
  };
}
