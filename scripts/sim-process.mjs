// Shared by the benchmark scripts: the simulator from dist/ in its own process, optionally
// pinned to CPUs with taskset, resolved once it prints its listening line.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
// Sets LOADGATE_CLOCK_OFFSET: the servers and generators started here stamp times on one clock.
import '../dist/clock.js';

export const root = new URL('..', import.meta.url).pathname;
export const canPin = spawnSync('taskset', ['--version']).status === 0;

/** argv run under `taskset -c cpus` where taskset exists, else as it is. */
export function pinnedTo(cpus, argv) {
  return canPin && cpus !== undefined ? ['taskset', ['-c', String(cpus), ...argv]] : [argv[0], argv.slice(1)];
}

/** [cmd, args] run inside network namespace `netns` (none: as they are). */
export function inNetns(netns, [cmd, args]) {
  return netns === undefined ? [cmd, args] : ['ip', ['netns', 'exec', netns, cmd, ...args]];
}

/**
 * `count` network namespaces of this process, each with its loopback up, removed at exit: runs in
 * them can all use the same 127.0.0.1 URL at once (one spec, one hash) without sharing a port.
 */
export function loopbackNamespaces(count) {
  const names = Array.from({ length: count }, (_, i) => `loadgate-bench-${process.pid}-${i}`);
  for (const name of names) {
    for (const argv of [
      ['netns', 'add', name],
      ['-n', name, 'link', 'set', 'lo', 'up'],
    ]) {
      const r = spawnSync('ip', argv, { encoding: 'utf8' });
      if (r.status !== 0)
        throw new Error(`ip ${argv.join(' ')}: ${r.stderr.trim() || 'failed'} (separate namespaces need root and iproute2)`);
    }
  }
  process.once('exit', () => names.forEach((name) => spawnSync('ip', ['netns', 'delete', name])));
  return names;
}

// A benchmark stopped with Ctrl-C or kill must not leave its simulators running.
const running = new Set();
process.once('exit', () => running.forEach((child) => child.kill('SIGTERM')));
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

/** `netns`: run it inside that network namespace (`ip netns exec`), where 127.0.0.1 is the namespace's own. */
export function startSim(config, { cpus, port = 0, netns } = {}) {
  return startServer([join(root, 'dist/sim.js'), '--port', String(port), '--config-json', JSON.stringify(config)], cpus, netns);
}

/** The paced server that is not the simulator (scripts/paced-server.mjs), its TTFT and gap in ms. */
export function startPacedServer({ ttftMs, itlMs }, { cpus } = {}) {
  return startServer([join(root, 'scripts/paced-server.mjs'), '--port', '0', '--ttft-ms', String(ttftMs), '--itl-ms', String(itlMs)], cpus);
}

/** A node script that prints "listening on ORIGIN", in its own process; resolved once it has. */
async function startServer(script, cpus, netns) {
  const [cmd, args] = inNetns(netns, pinnedTo(cpus, [process.execPath, ...script]));
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const origin = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s) => {
      out += s;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`${script[0]} exited (${code})`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    origin,
    pid: child.pid,
    stop: () => child.kill('SIGTERM'),
    /** Stops it and waits for the process to exit (its port is then free again). */
    stopped: () => (child.kill('SIGTERM'), exited),
  };
}
