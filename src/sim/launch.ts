import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseSimConfigJson, readSimConfigFile, SimConfigError, validateSimConfig, type SimConfig } from './config.js';
import { createSimServer } from './server.js';
import { packageRoot } from '../package-root.js';
import { show } from '../spec/messages.js';

export interface SimHandle {
  /** OpenAI base URL, e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  /** http://127.0.0.1:41234 — for /health, /metrics, /tokenize, /sim/requests */
  origin: string;
  pid: number;
  /** Terminates the sim and waits for it to exit. */
  stop(): Promise<void>;
}

const LISTENING = /^loadgate-sim listening on (http:\/\/\S+)$/m;

/**
 * Starts the simulator in its own process (`node dist/sim.js`) so that its timers never
 * share an event loop with the load generator's, and resolves once it listens. A bad
 * config rejects with the sim's one-line error. The sim exits when this process's end of
 * its stdin closes, so it never outlives the process that launched it.
 */
export function launchSim(config: Partial<SimConfig> | object = {}, opts: { port?: number; timeoutMs?: number } = {}): Promise<SimHandle> {
  const entry = join(packageRoot(), 'dist', 'sim.js');
  const args = [entry, '--port', String(opts.port ?? 0), '--config-json', JSON.stringify(config), '--exit-with-stdin'];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const timeoutMs = opts.timeoutMs ?? 10_000;

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(killer);
  };

  return new Promise<SimHandle>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.stdout.removeAllListeners('data');
      const detail = stderr.trim();
      reject(new Error(`loadgate sim ${why}${detail ? `: ${detail}` : ''}`));
    };
    const timer = setTimeout(() => {
      fail(`printed no listening line within ${timeoutMs} ms`);
      void stop();
    }, timeoutMs);
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.once('error', (err) => fail(`could not be started (${err.message})`));
    const early = (code: number | null, signal: NodeJS.Signals | null) => fail(`exited (${signal ?? `code ${code}`}) before listening`);
    child.once('exit', early);
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
      const m = LISTENING.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      child.off('exit', early);
      child.stdout.removeAllListeners('data').resume();
      child.stderr.removeAllListeners('data').pipe(process.stderr); // a crash after start still shows
      const origin = m[1];
      resolve({ baseUrl: `${origin}/v1`, origin, pid: child.pid!, stop });
    });
  });
}

/** Exit code of a config or listen failure: the CLI's "error" (src/cli/errors.ts), for `loadgate sim` and dist/sim.js alike. */
const EXIT_ERROR = 3;

export const SIM_HELP = `Usage: loadgate sim [--port P] [--host H] [--config FILE] [--config-json JSON]

Runs the OpenAI-compatible simulator in the foreground until SIGINT/SIGTERM.

Options:
  --port P            port to listen on; 0 picks a free one (default 8000)
  --host H            address to bind (default 127.0.0.1)
  --config FILE       YAML or JSON sim config (see src/sim/README.md)
  --config-json JSON  config as JSON; its fields override --config's
  -h, --help          this help

Exit codes: 0 stopped by a signal, 3 error (bad config, port in use).`;

/**
 * `loadgate sim`: validates the config, serves in the foreground, prints
 * `loadgate-sim listening on http://HOST:PORT`, and resolves with an exit code once
 * a signal (or, with --exit-with-stdin, the end of stdin) has closed the server.
 */
export async function runSimCli(argv: string[]): Promise<number> {
  let config: SimConfig;
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '8000' },
        host: { type: 'string', default: '127.0.0.1' },
        config: { type: 'string' },
        'config-json': { type: 'string' },
        'exit-with-stdin': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
    if (values.help) {
      process.stdout.write(`${SIM_HELP}\n`);
      return 0;
    }
    if (!/^\d+$/.test(values.port) || Number(values.port) > 65535)
      throw new Error(`--port is ${JSON.stringify(values.port)}; expected 0 to 65535`);
    const fromFile = values.config === undefined ? {} : mapping(readSimConfigFile(values.config), values.config);
    const fromJson = values['config-json'] === undefined ? {} : mapping(parseSimConfigJson(values['config-json']), '--config-json');
    config = validateSimConfig({ ...fromFile, ...fromJson });
  } catch (err) {
    const message = (err as Error).message;
    process.stderr.write(`${err instanceof SimConfigError ? message : `loadgate sim: ${message.split('\n')[0]}`}\n`);
    return EXIT_ERROR;
  }

  const sim = createSimServer(config);
  let port: number;
  try {
    port = await sim.listen(Number(values.port), values.host);
  } catch (err) {
    process.stderr.write(`loadgate sim: cannot listen on ${values.host}:${values.port}: ${listenFailure(err)}\n`);
    return EXIT_ERROR;
  }
  const host = values.host.includes(':') ? `[${values.host}]` : values.host;
  process.stdout.write(`loadgate-sim listening on http://${host}:${port}\n`);

  return new Promise<number>((resolve) => {
    const shutdown = () => {
      process.off('SIGTERM', shutdown).off('SIGINT', shutdown);
      process.stdin.off('end', shutdown);
      if (values['exit-with-stdin']) process.stdin.pause();
      void sim.close().then(() => resolve(0));
    };
    process.once('SIGTERM', shutdown).once('SIGINT', shutdown);
    if (values['exit-with-stdin']) process.stdin.on('end', shutdown).resume();
  });
}

function listenFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return 'EADDRINUSE (the port is in use; expected a free port, or --port 0 for any)';
  if (code === 'EADDRNOTAVAIL') return 'EADDRNOTAVAIL (no such address on this machine; expected a local address for --host)';
  if (code === 'EACCES') return 'EACCES (ports below 1024 need privileges; expected a port from 1024)';
  return code ?? (err as Error).message;
}

function mapping(value: unknown, source: string): object {
  if (value === null || value === undefined) return {}; // an empty file
  if (typeof value !== 'object' || Array.isArray(value)) throw new SimConfigError(`${source} holds ${show(value)}; expected a mapping`);
  return value;
}
