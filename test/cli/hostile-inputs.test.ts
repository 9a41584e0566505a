/**
 * Hostile inputs to the CLI (output paths, a wrong model or key, Ctrl-C, credentials, sizes, flags), against the real
 * CLI (bin/loadgate.js → dist/cli.js), the bundled simulator (dist/sim.js) and loopback fixtures
 * that count what reached them.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readResult } from '../../src/result/load.js';
import { launchSim, type SimHandle } from '../../src/sim/launch.js';
import { errorResponse, openaiStream, startScriptedServer, type Script, type ScriptedServer } from '../fixtures/scripted-server.js';

const CLI = join(process.cwd(), 'bin', 'loadgate.js');
const SIM = join(process.cwd(), 'dist', 'sim.js');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a node script asynchronously (the fixtures answer from this process meanwhile). */
function node(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? -1) : 0;
      resolve({ code: typeof code === 'number' ? code : -1, stdout, stderr });
    });
  });
}
const loadgate = (args: string[], env: Record<string, string> = {}) => node([CLI, ...args], env);

/** One line on stderr, naming the problem: never a stack trace. */
function expectOneLine(r: Ran, pattern: RegExp) {
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => !/^\[(warmup|steady|cooldown|drain)\]/.test(l)); // the plain progress lines of a run
  expect(lines.join('\n')).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(lines).toHaveLength(1);
}

const tmp = () => mkdtempSync(join(tmpdir(), 'loadgate-hostile-'));
const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

let server: ScriptedServer | undefined;
let sim: SimHandle | undefined;
afterEach(async () => {
  await server?.close();
  await sim?.stop();
  server = undefined;
  sim = undefined;
});

/** A loopback target that lists `models` and streams a short answer; it counts completion requests. */
async function target(models: string[], models401 = false): Promise<{ server: ScriptedServer; completions: () => number }> {
  let completions = 0;
  const s = await startScriptedServer((req): Script => {
    if (req.url.endsWith('/models'))
      return models401
        ? errorResponse(401, 'invalid api key')
        : { status: 200, steps: [{ send: JSON.stringify({ data: models.map((id) => ({ id })) }) }, { end: true }] };
    completions += 1;
    return openaiStream({ ttftMs: 5, itlMs: 1, tokens: 4 });
  });
  server = s;
  return { server: s, completions: () => completions };
}

function specFile(dir: string, text: string): string {
  const path = join(dir, 'bench.yml');
  writeFileSync(path, text);
  return path;
}

const shortLoad =
  'workload: {calibrate: off, input_tokens: 16, output_tokens: 8}\nload: {rate: 20, arrival: constant, warmup: 0s, steady: 2s, cooldown: 0s}\n';

describe('output paths are checked before the first request', () => {
  test('a directory as --out, /proc/nope/x.json (the mkdir loop) and an unwritable --records fail at once: one line, exit 3, no request sent', async () => {
    const t = await target(['m']);
    const dir = tmp();
    const spec = specFile(dir, `target: {url: "${t.server.baseUrl}", model: m, ready_timeout: 2s}\n${shortLoad}`);
    for (const [args, pattern] of [
      [['--out', dir], /^loadgate run: --out .*: is a directory; expected a file path$/],
      [
        ['--out', '/proc/nope/x.json'],
        /^loadgate run: --out \/proc\/nope\/x\.json: the folder \/proc\/nope cannot be created \(no such place\); expected a writable place$/,
      ],
      [
        ['--out', join(dir, 'r.json'), '--records', '/proc/nope/x.jsonl'],
        /^loadgate run: --records \/proc\/nope\/x\.jsonl: the folder \/proc\/nope cannot be created/,
      ],
      [
        ['--out', join(spec, 'r.json')],
        /^loadgate run: --out .*bench\.yml\/r\.json: cannot be used \(a part of the path is a file, not a folder\)$/,
      ],
      [['--out', '/dev/null'], /^loadgate run: --out \/dev\/null: is not a regular file/],
    ] as const) {
      const r = await loadgate(['run', spec, '--workers', '1', ...args]);
      expect(r.code).toBe(3);
      expectOneLine(r, pattern);
    }
    expect(t.server.requests).toBe(0); // not even the readiness check: the paths were checked first
  });

  test('--records into a folder that does not exist: the folder is made, every scheduled request is a line, and result.json is written', async () => {
    const t = await target(['m']);
    const dir = tmp();
    const spec = specFile(dir, `target: {url: "${t.server.baseUrl}", model: m}\n${shortLoad}`);
    const out = join(dir, 'out', 'r.json');
    const records = join(dir, 'nodir', 'x.jsonl');
    const r = await loadgate(['run', spec, '--workers', '1', '--out', out, '--records', records]);
    expect([0, 1, 2]).toContain(r.code); // a verdict, whichever: not a crash (the old exit 1 was Node's)
    expect(r.stderr).not.toMatch(/\n\s+at |Unhandled/);
    const result = readResult(out);
    const lines = readFileSync(records, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(result.requests.scheduled);
    expect(result.requests.scheduled).toBeGreaterThan(35);
  });

  test('report and compare check --html and --markdown before judging', async () => {
    const dir = tmp();
    const result = join(dir, 'r.json');
    const t = await target(['m']);
    const spec = specFile(dir, `target: {url: "${t.server.baseUrl}", model: m}\n${shortLoad}`);
    await loadgate(['run', spec, '--workers', '1', '--out', result]);
    const [report, compare] = await Promise.all([
      loadgate(['report', result, '--html', dir]),
      loadgate(['compare', result, result, '--markdown', '/proc/nope/r.md']),
    ]);
    expect(report.code).toBe(3);
    expectOneLine(report, /^loadgate report: --html .*: is a directory; expected a file path$/);
    expect(compare.code).toBe(3);
    expectOneLine(compare, /^loadgate compare: --markdown \/proc\/nope\/r\.md: the folder \/proc\/nope cannot be created/);
  });

  test('a write that fails after the run is one line and exit 3 (the folder replaced by a file mid-run); a records file that fills up (/dev/full) too, and the result is still written', async () => {
    const t = await target(['m']);
    const dir = tmp();
    const spec = specFile(dir, `target: {url: "${t.server.baseUrl}", model: m}\n${shortLoad}`);
    const out = join(dir, 'sub', 'r.json');
    const pending = loadgate(['run', spec, '--workers', '1', '--out', out]);
    // The check made the folder; once the load is on, it becomes a file.
    const deadline = Date.now() + 10_000;
    while (t.completions() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(join(dir, 'sub'))).toBe(true);
    rmSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'sub'), 'not a folder');
    const r = await pending;
    expect(r.code).toBe(3);
    expectOneLine(r, /^loadgate run: --out .*sub\/r\.json: .*sub is a file, not a folder; expected a path in a folder$/);

    const full = await loadgate(['run', spec, '--workers', '1', '--out', join(dir, 'full.json'), '--records', '/dev/full']);
    expect(full.code).toBe(3);
    expect(full.stderr).toMatch(
      /^loadgate run: --records \/dev\/full: writing the records failed \(ENOSPC\); the records are incomplete$/m,
    );
    expect(full.stderr).not.toMatch(/\n\s+at /);
    expect(readResult(join(dir, 'full.json')).requests.scheduled).toBeGreaterThan(35);
  });
});

describe('a wrong model or a rejected key is an error at readiness, not a regression', () => {
  test('a model the simulator does not serve: exit 3 at once, naming what it serves, with a did-you-mean; no completion is sent', async () => {
    sim = await launchSim({ mode: 'paced', ttft_ms: 5, itl_ms: 1, model: 'llama-3.1-8b-instruct' });
    const dir = tmp();
    const spec = specFile(dir, `target: {url: "${sim.baseUrl}", model: llama-3.1-8b-instrcut}\n${shortLoad}`);
    const r = await loadgate(['run', spec, '--workers', '1', '--out', join(dir, 'r.json')]);
    expect(r.code).toBe(3);
    expectOneLine(
      r,
      /^loadgate run: target\.model "llama-3\.1-8b-instrcut" is not served by http:\/\/127\.0\.0\.1:\d+\/v1 \(it lists "llama-3\.1-8b-instruct"\); did you mean "llama-3\.1-8b-instruct"\?$/,
    );
    expect(existsSync(join(dir, 'r.json'))).toBe(false);
    // The same against a fixture that counts: not one completion request was sent.
    const t = await target(['qwen2.5-7b', 'llama-3.1-8b-instruct']);
    const counted = specFile(dir, `target: {url: "${t.server.baseUrl}", model: mistral-7b}\n${shortLoad}`);
    const r2 = await loadgate(['run', counted, '--workers', '1', '--out', join(dir, 'r.json')]);
    expect(r2.code).toBe(3);
    expectOneLine(r2, /is not served by .* \(it lists "qwen2\.5-7b", "llama-3\.1-8b-instruct"\); expected one of them in target\.model$/);
    expect(t.completions()).toBe(0);
  });

  test('a 401 at readiness: exit 3 at once, "the server rejected the API key (HTTP 401)", not retried for ready_timeout', async () => {
    const t = await target(['m'], true);
    const dir = tmp();
    const spec = specFile(dir, `target: {url: "${t.server.baseUrl}", model: m, api_key_env: LG_KEY, ready_timeout: 5m}\n${shortLoad}`);
    const r = await loadgate(['run', spec, '--workers', '1', '--out', join(dir, 'r.json')], { LG_KEY: 'sk-wrong' });
    expect(r.code).toBe(3);
    expectOneLine(
      r,
      /^loadgate run: the server rejected the API key \(HTTP 401\) at http:\/\/127\.0\.0\.1:\d+\/v1\/models; expected a key it accepts in LG_KEY \(target\.api_key_env\)$/,
    );
    expect(r.stderr).not.toContain('sk-wrong');
    expect(t.server.requests).toBe(1); // asked once: a retry loop would ask again until ready_timeout
  });

  test('no target.model and one model listed: it is used, and said; with several: refused, listing them', async () => {
    sim = await launchSim({ mode: 'paced', ttft_ms: 5, itl_ms: 1, model: 'the-only-model' });
    const dir = tmp();
    const spec = specFile(dir, `target: {url: "${sim.baseUrl}"}\n${shortLoad}`);
    expect((await loadgate(['validate', spec])).code).toBe(0);
    const r = await loadgate(['run', spec, '--workers', '1', '--out', join(dir, 'r.json')]);
    expect([0, 1, 2]).toContain(r.code);
    expect(r.stderr).toContain(`target.model is not set: using "the-only-model", the one model ${sim.baseUrl} lists`);
    const result = readResult(join(dir, 'r.json'));
    expect(result.target.model).toBe('the-only-model');
    expect(result.spec.target.model).toBe('the-only-model');
    expect(result.requests.by_class.ok).toBe(result.requests.scheduled);

    const t = await target(['qwen-7b', 'llama-8b']);
    const several = specFile(dir, `target: {url: "${t.server.baseUrl}"}\n${shortLoad}`);
    const refused = await loadgate(['run', several, '--workers', '1', '--out', join(dir, 'r2.json')]);
    expect(refused.code).toBe(3);
    expectOneLine(
      refused,
      /^loadgate run: target\.model is not set and http:\/\/127\.0\.0\.1:\d+\/v1 lists 2 models \("qwen-7b", "llama-8b"\); expected one of them in target\.model$/,
    );
    expect(t.completions()).toBe(0);
  });
});

describe('Ctrl-C', () => {
  test('during the readiness wait: stops at once and writes a result that says no request was sent, every scheduled request accounted for', async () => {
    server = await startScriptedServer(() => errorResponse(503, 'loading model'));
    const dir = tmp();
    const spec = specFile(dir, `target: {url: "${server.baseUrl}", model: m, ready_timeout: 60s}\n${shortLoad}`);
    const out = join(dir, 'r.json');
    const child = spawn(process.execPath, [CLI, 'run', spec, '--out', out, '--workers', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    while (server.requests < 2) await new Promise((r) => setTimeout(r, 20));
    const t0 = Date.now();
    child.kill('SIGINT');
    const code = await new Promise((r) => child.on('exit', r));
    expect(Date.now() - t0).toBeLessThan(30_000); // half the 60 s ready_timeout it would otherwise wait out
    expect(code).toBe(2);
    const [, notReached] = /interrupted before the first request: no request was sent \((\d+) scheduled arrivals not reached\)/.exec(
      stderr,
    )!;
    const result = readResult(out);
    expect(result.load.interrupted).toBe(true);
    expect(result.requests.scheduled).toBe(0);
    expect(result.requests.not_reached).toBe(Number(notReached));
    expect(result.requests.not_reached).toBeGreaterThan(35);
    expect(server.requests).toBeGreaterThanOrEqual(2); // only readiness probes reached the server
    expect(sum(result.requests.by_class)).toBe(0);
  });

  test('two signals 50 ms apart mid-run (default worker threads, the simulator): the result is still written with every arrival accounted for; exit 130 once it is', async () => {
    const dir = tmp();
    const spec = specFile(
      dir,
      'target: {url: sim, sim: {mode: paced, ttft_ms: 20, itl_ms: 20}}\nworkload: {calibrate: off, output_tokens: 100}\nload: {rate: 20, arrival: constant, warmup: 0s, steady: 60s, cooldown: 0s}\n',
    );
    for (const gapMs of [50, 0]) {
      const out = join(dir, `r${gapMs}.json`);
      const child = spawn(process.execPath, [CLI, 'run', spec, '--out', out, '--workers', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise((r) => child.on('exit', r));
      while (!/sent [1-9]\d/.test(stderr)) await new Promise((r) => setTimeout(r, 20)); // a progress line: the load is on
      child.kill('SIGINT');
      if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      else while (!stderr.includes('interrupted: stopping dispatch')) await new Promise((r) => setImmediate(r));
      child.kill('SIGINT');
      const code = await exited;
      // The second signal comes while the run stops (the simulator is being stopped before the
      // write): acknowledged, and 130 only after the result is out. Had the process already
      // written it and exited, the code would be the verdict's: either way nothing is lost.
      if (gapMs === 0 || stderr.includes('interrupted again')) {
        expect(stderr).toContain('interrupted again: the result is being written; exiting with 130 as soon as it is');
        expect(code).toBe(130);
      } else expect(code).toBe(2);
      const result = readResult(out);
      expect(result.load.interrupted).toBe(true);
      expect(sum(result.requests.by_class)).toBe(result.requests.scheduled);
      expect(result.requests.scheduled + result.requests.not_reached).toBeGreaterThan(1150);
    }
  });

  // In-process (jest's own process must not receive a real signal): the listeners the trap installs are what a signal calls.
  test('a second SIGINT while the trap is set neither kills the process nor aborts twice; the run is marked forced', async () => {
    const { trapInterrupts, EXIT_INTERRUPTED } = await import('../../src/run/interrupt.js');
    const abort = new AbortController();
    let aborts = 0;
    abort.signal.addEventListener('abort', () => aborts++);
    const said: string[] = [];
    const trap = trapInterrupts(abort, (l) => said.push(l));
    try {
      process.emit('SIGINT', 'SIGINT');
      expect(trap.forced).toBe(false);
      process.emit('SIGTERM', 'SIGTERM');
      expect(trap.forced).toBe(true);
      expect(aborts).toBe(1);
      expect(said).toEqual([
        'interrupted: stopping dispatch, cancelling in-flight requests, writing the result…',
        'interrupted again: the result is being written; exiting with 130 as soon as it is',
      ]);
      expect(EXIT_INTERRUPTED).toBe(130);
    } finally {
      trap.release();
    }
  });
});

describe('credentials in the URL', () => {
  test('refused by validate and by --target-url and --baseline-url, pointing at target.api_key_env, the password never printed', async () => {
    const dir = tmp();
    const spec = specFile(dir, 'target: {url: "http://admin:pw@127.0.0.1:9/v1", model: m}\n');
    const [v, flag, ab] = await Promise.all([
      loadgate(['validate', spec]),
      loadgate(['run', 'examples/quickstart.yml', '--target-url', 'http://admin:pw@127.0.0.1:9/v1']),
      loadgate([
        'run',
        'examples/quickstart.yml',
        '--target-url',
        'http://127.0.0.1:9/v1',
        '--baseline-url',
        'http://admin:pw@127.0.0.1:9/v1',
      ]),
    ]);
    expect(v.code).toBe(3);
    expectOneLine(
      v,
      /^loadgate validate: .*bench\.yml: target\.url contains user:password@ credentials \(for host 127\.0\.0\.1:9\); expected a URL without them: put the key in an environment variable and name it in target\.api_key_env$/,
    );
    expect(flag.code).toBe(3);
    expectOneLine(flag, /^loadgate run: --target-url contains user:password@ credentials .*target\.api_key_env$/);
    expect(ab.code).toBe(3);
    expectOneLine(ab, /^loadgate run: --baseline-url contains user:password@ credentials .*target\.api_key_env\)$/);
    for (const r of [v, flag, ab]) expect(`${r.stdout}${r.stderr}`).not.toMatch(/pw@|:pw\b/);
  });
});

describe('the simulator exits 3 on errors, as loadgate sim and as dist/sim.js', () => {
  test('port in use (EADDRINUSE) and max_num_seqs: -1: one line, exit 3, both', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = String((busy.address() as { port: number }).port);
    try {
      const entries = [[CLI, 'sim'], [SIM]];
      const runs = await Promise.all(
        entries.map((entry) =>
          Promise.all([node([...entry, '--port', port]), node([...entry, '--port', '0', '--config-json', '{"max_num_seqs": -1}'])]),
        ),
      );
      for (const [inUse, bad] of runs) {
        expect(inUse.code).toBe(3);
        expectOneLine(inUse, new RegExp(`^loadgate sim: cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE \\(the port is in use`));
        expect(bad.code).toBe(3);
        expectOneLine(bad, /^sim config: max_num_seqs is -1; expected an integer ≥ 1$/);
      }
    } finally {
      busy.close();
    }
  });
});

describe('validate refuses what run cannot do', () => {
  test('rate: 1e12 and steady: 1000000h, with the stated maximum in the message', async () => {
    // Each spec is written to a folder of its own: the three run at once.
    const [rate, steady, flag] = await Promise.all([
      loadgate(['validate', specFile(tmp(), 'target: {url: sim}\nload: {rate: 1e12}\n')]),
      loadgate(['validate', specFile(tmp(), 'target: {url: sim}\nload: {steady: 1000000h}\n')]),
      loadgate(['run', 'examples/quickstart.yml', '--rate', '1e12']),
    ]);
    expect(rate.code).toBe(3);
    expectOneLine(
      rate,
      /load\.rate is 1000000000000 req\/s over 37 s of warmup, steady and cooldown: 37,000,000,000,000 scheduled requests; expected at most 10,000,000 per run/,
    );
    expect(steady.code).toBe(3);
    expectOneLine(steady, /load\.steady is "1000000h"; expected a duration of at most 24h$/);
    expect(flag.code).toBe(3);
    expectOneLine(flag, /^loadgate run: --rate is 1000000000000 req\/s .* expected at most 10,000,000 per run/);
  });

  test('/dev/zero as the spec and a 50 MB name: refused in bounded time and memory', async () => {
    const dir = tmp();
    const huge = join(dir, 'huge.yml');
    writeFileSync(huge, `target: {url: sim}\nname: ${'x'.repeat(50 * 1024 * 1024)}\n`);
    const [zero, r, long] = await Promise.all([
      loadgate(['validate', '/dev/zero']),
      loadgate(['validate', huge]),
      loadgate(['validate', specFile(dir, `target: {url: sim}\nname: ${'x'.repeat(10_000)}\n`)]),
    ]);
    expect(zero.code).toBe(3);
    expectOneLine(
      zero,
      /^loadgate validate: \/dev\/zero: is not a regular file \(a device, pipe or socket\); expected a readable YAML spec file$/,
    );
    expect(r.code).toBe(3);
    expectOneLine(r, /huge\.yml: is larger than 1 MiB/);
    expect(long.code).toBe(3);
    expectOneLine(long, /bench\.yml: name is 10,000 characters long; expected at most 256 characters$/);
  });
});

describe('the CLI parsing', () => {
  test('--rate -1 is judged as a rate; a --duration error names --duration; an unknown flag gets a did-you-mean', async () => {
    const [rate, duration, typo] = await Promise.all([
      loadgate(['run', 'examples/quickstart.yml', '--rate', '-1']),
      loadgate(['run', 'examples/quickstart.yml', '--duration', '0s']),
      loadgate(['run', 'examples/quickstart.yml', '--recrods', 'x.jsonl']),
    ]);
    expect(rate.code).toBe(3);
    expectOneLine(rate, /^loadgate run: --rate is -1; expected a number > 0$/);
    expect(duration.code).toBe(3);
    expectOneLine(duration, /^loadgate run: --duration is "0s"; expected a duration > 0$/);
    expect(typo.code).toBe(3);
    expectOneLine(typo, /^loadgate run: Unknown option '--recrods'; did you mean --records\? \(see loadgate run --help\)$/);
  });

  test('a --format vllm file read back by report or compare says what it is', async () => {
    const t = await target(['m']);
    const dir = tmp();
    mkdirSync(join(dir, 'v'));
    const spec = specFile(dir, `target: {url: "${t.server.baseUrl}", model: m}\n${shortLoad}`);
    const vllm = join(dir, 'v', 'vllm.json');
    await loadgate(['run', spec, '--workers', '1', '--format', 'vllm', '--out', vllm]);
    expect(JSON.parse(readFileSync(vllm, 'utf8')).request_throughput).toBeGreaterThan(0);
    const runs = await Promise.all([loadgate(['report', vllm, '--html', join(dir, 'r.html')]), loadgate(['compare', vllm, vllm])]);
    for (const r of runs) {
      expect(r.code).toBe(3);
      expectOneLine(
        r,
        /vllm\.json: is in vllm bench serve's format \(loadgate run --format vllm\), which holds no histograms and cannot be read back; expected a result written without --format vllm$/,
      );
    }
  });
});
