/**
 * What a bad server or a bad file must never do to a run: crash it, exhaust its memory,
 * overwrite an input or echo a secret. Each case as a user would meet it, against the real CLI
 * (bin/loadgate.js → dist/cli.js; `npm run build` first) and loopback servers that are not the
 * simulator (test/fixtures/hostile-server.ts).
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readResult } from '../../src/result/load.js';
import { synthesize } from '../result/synthetic.js';
import { calibrationFrom } from '../../src/gate/calibration.js';
import { mergeResults } from '../../src/result/merge.js';
import { openaiStream, startScriptedServer, type Script } from '../fixtures/scripted-server.js';
import { event, startHostileServer, writeUntil, type HostileServer } from '../fixtures/hostile-server.js';

const CLI = join(process.cwd(), 'bin', 'loadgate.js');

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  /** The child's peak resident set, sampled from /proc every 20 ms, in MB. */
  peakRssMb: number;
}

/** Runs the CLI asynchronously (the fixture answers from this process meanwhile), sampling its memory. */
export function loadgate(args: string[], env: Record<string, string> = {}, cwd = process.cwd()): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const sample = setInterval(() => {
      try {
        const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (kb) peak = Math.max(peak, Number(kb[1]) / 1024);
      } catch {
        // exited between samples
      }
    }, 20);
    const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearInterval(sample);
      clearTimeout(kill);
      resolve({ code: code ?? -1, stdout, stderr, peakRssMb: peak });
    });
  });
}

/** One line on stderr naming the problem, never a stack trace. */
export function expectOneLine(r: Ran, pattern: RegExp): void {
  const lines = r.stderr.trim().split('\n');
  expect(lines.join('\n')).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(lines).toHaveLength(1);
}

export const tmp = () => mkdtempSync(join(tmpdir(), 'loadgate-hostile2-'));
export function file(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const shortLoad =
  'workload: {calibrate: off, input_tokens: 16, output_tokens: 8}\nload: {rate: 5, arrival: constant, warmup: 0s, steady: 2s, cooldown: 0s}\n';
const spec = (dir: string, s: HostileServer, extra = '') =>
  file(dir, 'bench.yml', `target: {url: "${s.baseUrl}", model: m, request_timeout: 10s}\n${shortLoad}${extra}`);

let server: HostileServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a server sending impossible numbers or endless bytes', () => {
  test('completion_tokens: 1e16 and prompt_tokens: 1e16: each such request is a stream_error naming the field, the run goes on, the result is written', async () => {
    let n = 0;
    server = await startHostileServer((res) => {
      const usage =
        n++ % 2 === 0 ? { completion_tokens: 1e16, prompt_tokens: 4 } : { completion_tokens: 4, prompt_tokens: 10000000000000000 };
      res.write(event({ choices: [{ delta: { content: 'hi' } }] }));
      res.write(event({ choices: [], usage }));
      res.write(event('[DONE]'));
    });
    const dir = tmp();
    const out = join(dir, 'r.json');
    const r = await loadgate(['run', spec(dir, server), '--workers', '2', '--out', out]);
    expect(r.stderr).not.toMatch(/Index Out Of Bounds|crashed|\n\s+at /);
    expect([0, 1, 2]).toContain(r.code);
    const result = readResult(out);
    expect(result.requests.scheduled).toBeGreaterThanOrEqual(8);
    expect(result.requests.by_class.stream_error).toBe(result.requests.scheduled);
    const details = result.requests.error_samples.map((s) => s.detail).join('\n');
    expect(details).toMatch(/malformed chunk: usage\.completion_tokens is 10000000000000000; expected an integer from 0 to 1e9/);
    expect(details).toMatch(/malformed chunk: usage\.prompt_tokens is 10000000000000000; expected an integer from 0 to 1e9/);
  }, 30_000);

  test('one 200 MB data: line without a newline: the generator stays under 400 MB, each such request is a stream_error naming the bound, and the result is written', async () => {
    const mb = Buffer.alloc(1024 * 1024, 'x');
    server = await startHostileServer(async (res, count) => {
      res.write('data: {"choices":[{"delta":{"content":"');
      await writeUntil(res, mb, 200 * 1024 * 1024, count);
    });
    const dir = tmp();
    const out = join(dir, 'r.json');
    const r = await loadgate(['run', spec(dir, server), '--workers', '1', '--out', out]);
    expect([0, 1, 2]).toContain(r.code);
    expect(r.peakRssMb).toBeGreaterThan(0);
    expect(r.peakRssMb).toBeLessThan(400);
    const result = readResult(out);
    expect(result.requests.by_class.stream_error).toBe(result.requests.scheduled);
    expect(result.requests.error_samples[0].detail).toBe(
      'an SSE line or event longer than 4 MiB (load.max_event_bytes); the stream was abandoned',
    );
    // The client stopped reading: far less than 200 MB per request left the server.
    expect(server.bytesWritten).toBeLessThan(result.requests.scheduled * 40 * 1024 * 1024);
  }, 60_000);

  test('load.max_event_bytes sets the bound: 2048 fails a 3 kB event that the default lets through', async () => {
    server = await startHostileServer((res) => {
      res.write(event({ choices: [{ delta: { content: 'y'.repeat(3000) } }] }));
      res.write(event('[DONE]'));
    });
    const dir = tmp();
    const bounded = await loadgate([
      'run',
      file(dir, 'b.yml', readFileSync(spec(dir, server), 'utf8').replace('cooldown: 0s}', 'cooldown: 0s, max_event_bytes: 2048}')),
      '--workers',
      '1',
      '--out',
      join(dir, 'b.json'),
    ]);
    expect([1, 2]).toContain(bounded.code);
    expect(readResult(join(dir, 'b.json')).requests.error_samples[0].detail).toMatch(/longer than 2 KiB \(load\.max_event_bytes\)/);
    const free = await loadgate(['run', spec(dir, server), '--workers', '1', '--out', join(dir, 'f.json')]);
    expect(free.stderr).not.toMatch(/\n\s+at /);
    const result = readResult(join(dir, 'f.json'));
    expect(result.requests.by_class.ok).toBe(result.requests.scheduled);
  }, 30_000);
});

describe('a bad file is refused in bounded time and memory, and its contents are never quoted', () => {
  const SECRET = 'sk-live-abcdefghijklmnopqrstuvwxyz0123456789';
  const sim = 'target: {url: sim}\n';

  test('dataset /dev/zero, a FIFO nobody writes to, length files of 1.5·10⁶ lines and of 40 MB, a length of 1e12: validate exits 3 within 10 s, one line each, stating the cap', async () => {
    const dir = tmp();
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const many = file(dir, 'many.txt', '1\n'.repeat(1_500_000));
    file(dir, 'big.txt', '100\n'.repeat(10_000_000));
    file(dir, 'huge.txt', '100\n1000000000000\n');
    for (const [text, pattern] of [
      [
        `${sim}workload: {dataset: {path: /dev/zero, format: jsonl}}\n`,
        /^loadgate validate: workload\.dataset\.path \/dev\/zero: is not a regular file \(a device, pipe or socket\); expected a readable regular file, the path relative to the spec file$/,
      ],
      [
        `${sim}workload: {dataset: {path: fifo.jsonl, format: jsonl}}\n`,
        /fifo\.jsonl"? \(.*fifo\.jsonl\): is not a regular file \(a device, pipe or socket\); expected a readable regular file/,
      ],
      [
        `${sim}workload: {input_tokens: {dist: empirical, file: many.txt}}\n`,
        /: workload\.input_tokens\.file .*many\.txt: has more than 1,000,000 lines; expected at most 16 MiB and 1,000,000 lines$/,
      ],
      [
        `${sim}workload: {input_tokens: {dist: empirical, file: huge.txt}}\n`,
        /huge\.txt:2: 1000000000000 is not a length; expected a positive integer of at most 2,000,000$/,
      ],
    ] as const) {
      const r = await loadgate(['validate', file(dir, 'bench.yml', text)]);
      expect(r.code).toBe(3);
      expectOneLine(r, pattern);
      expect(r.peakRssMb).toBeLessThan(400);
    }
    expect(many).toBeTruthy();
  }, 60_000);

  test('input_tokens: 100000000 and concurrency: 1000000: validate exits 3, as run would', async () => {
    const dir = tmp();
    const tokens = await loadgate(['validate', file(dir, 'bench.yml', `${sim}workload: {input_tokens: 100000000}\n`)]);
    expect(tokens.code).toBe(3);
    expectOneLine(tokens, /workload\.input_tokens\.value is 100000000; expected a positive integer of at most 2,000,000 tokens$/);
    const concurrency = await loadgate(['validate', file(dir, 'bench.yml', `${sim}load: {mode: closed, concurrency: 1000000}\n`)]);
    expect(concurrency.code).toBe(3);
    expectOneLine(concurrency, /load\.concurrency is 1000000; expected an integer from 1 to 10,000$/);
  });

  test('a .env given as the spec, as a sim config, as a dataset and as a length file: the message names the file and never its values; /etc/passwd neither', async () => {
    const dir = tmp();
    const env = file(dir, '.env', `OPENAI_API_KEY=${SECRET}\nDB_PASSWORD=hunter2hunter2\n`);
    const runs = [
      await loadgate(['validate', env]),
      await loadgate(['sim', '--config', env]),
      await loadgate(['validate', file(dir, 'd.yml', `${sim}workload: {dataset: {path: .env, format: jsonl}}\n`)]),
      await loadgate(['validate', file(dir, 'p.yml', `${sim}workload: {dataset: {path: /etc/passwd, format: sharegpt}}\n`)]),
      await loadgate(['validate', file(dir, 'l.yml', `${sim}workload: {output_tokens: {dist: empirical, file: .env}}\n`)]),
    ];
    expectOneLine(runs[0], /^loadgate validate: .*\.env: top level is a string of \d+ characters; expected a mapping/);
    expectOneLine(runs[1], /^sim config: .*\.env holds a string of \d+ characters; expected a mapping$/);
    expectOneLine(runs[2], /\.env:1: not valid JSON \(a syntax error\); expected/);
    expectOneLine(runs[3], /passwd:1: not valid JSON \(a syntax error\); expected/);
    expectOneLine(runs[4], /\.env: holds no lengths; expected at least one|\.env:2: text is not a length/);
    for (const r of runs) {
      expect(r.code).toBe(3);
      expect(r.stdout + r.stderr).not.toMatch(/sk-live|hunter2|root:/);
    }
  });

  test('a 5 MB sim config: one short line, not the file', async () => {
    const dir = tmp();
    const r = await loadgate(['sim', '--config', file(dir, 'big.yml', `${'x'.repeat(5_000_000)}\n`)]);
    expect(r.code).toBe(3);
    expectOneLine(r, /^sim config: .*big\.yml: is larger than 1 MiB; expected a YAML or JSON simulator config of at most 1 MiB$/);
    expect(r.stderr.length).toBeLessThan(300);
  });
});

describe('an input is never an output, and no run is counted twice', () => {
  const SPEC =
    'target: {url: sim}\nworkload: {calibrate: off, input_tokens: 16, output_tokens: 8}\nload: {rate: 5, warmup: 0s, steady: 1s, cooldown: 0s}\n';
  const results = (dir: string) => {
    const a = file(dir, 'a.json', JSON.stringify(synthesize({ n: 50, windowS: 10 })));
    const b = file(dir, 'b.json', JSON.stringify(synthesize({ n: 50, windowS: 10 })));
    return { a, b };
  };

  test('run s.yml --out s.yml, --out X --records X, --records s.yml, a symlink to the spec, and --out the dataset: exit 3 before any request, every input intact', async () => {
    const dir = tmp();
    const spec = file(dir, 's.yml', SPEC);
    const data = file(dir, 'd.jsonl', '{"prompt": "hello"}\n');
    const withData = file(
      dir,
      'w.yml',
      SPEC.replace('input_tokens: 16, ', '').replace('calibrate: off', 'calibrate: off, dataset: {path: d.jsonl, format: jsonl}'),
    );
    symlinkSync(spec, join(dir, 'link.yml'));
    const calibration = file(
      dir,
      'cal.json',
      JSON.stringify(calibrationFrom(mergeResults([synthesize({ n: 50 }), synthesize({ n: 50 })]))),
    );
    const withCalibration = file(dir, 'c.yml', `${SPEC}gate: {calibration: ${JSON.stringify(calibration)}}\n`);
    for (const [args, pattern] of [
      [['run', withCalibration, '--out', calibration], /^loadgate run: --out .*cal\.json: is the same file as gate\.calibration;/],
      [
        ['run', spec, '--out', spec],
        /^loadgate run: --out .*s\.yml: is the same file as the spec; expected a path of its own \(writing it would replace an input\)$/,
      ],
      [
        ['run', spec, '--out', join(dir, 'x.json'), '--records', join(dir, 'x.json')],
        /^loadgate run: --records .*x\.json: is the same file as --out; expected a path of its own \(each output is written whole\)$/,
      ],
      [['run', spec, '--out', join(dir, 'r.json'), '--records', spec], /^loadgate run: --records .*s\.yml: is the same file as the spec;/],
      [['run', spec, '--out', join(dir, 'link.yml')], /^loadgate run: --out .*link\.yml: is the same file as the spec \(.*s\.yml\);/],
      [
        ['run', withData, '--out', join(dir, '.', 'd.jsonl')],
        /^loadgate run: --out .*d\.jsonl: is the same file as workload\.dataset\.path;/,
      ],
    ] as const) {
      const r = await loadgate([...args, '--workers', '1']);
      expect(r.code).toBe(3);
      expectOneLine(r, pattern);
    }
    expect(readFileSync(spec, 'utf8')).toBe(SPEC);
    expect(readFileSync(data, 'utf8')).toBe('{"prompt": "hello"}\n');
    expect(JSON.parse(readFileSync(calibration, 'utf8'))).toMatchObject({ kind: 'loadgate-calibration' });
  });

  test('compare B R --markdown R, report R --html R, --html F --markdown F, and calibrate --out its spec: exit 3, the files intact', async () => {
    const dir = tmp();
    const { a, b } = results(dir);
    const before = [readFileSync(a, 'utf8'), readFileSync(b, 'utf8')];
    const f = join(dir, 'f.out');
    for (const [args, pattern] of [
      [['compare', a, b, '--markdown', b], /^loadgate compare: --markdown .*b\.json: is the same file as RESULT;/],
      [['report', a, '--html', a], /^loadgate report: --html .*a\.json: is the same file as the result;/],
      [['report', a, '--html', f, '--markdown', f], /^loadgate report: --html .*f\.out: is the same file as --markdown;/],
      [
        ['calibrate', file(dir, 'c.yml', SPEC), '--out', join(dir, 'c.yml')],
        /^loadgate calibrate: --out .*c\.yml: is the same file as the spec;/,
      ],
    ] as const) {
      const r = await loadgate(args as unknown as string[]);
      expect(r.code).toBe(3);
      expectOneLine(r, pattern);
    }
    expect([readFileSync(a, 'utf8'), readFileSync(b, 'utf8')]).toEqual(before);
  });

  test('merge a.json a.json (also ./a.json, a symlink, a hard link and a copy) and calibrate --from a a a: exit 3, nothing written', async () => {
    const dir = tmp();
    const { a, b } = results(dir);
    symlinkSync(a, join(dir, 'sym.json'));
    linkSync(a, join(dir, 'hard.json'));
    copyFileSync(a, join(dir, 'copy.json'));
    const out = join(dir, 'm.json');
    for (const [second, pattern] of [
      [a, /^loadgate merge: .*a\.json: is the same file as .*a\.json; expected each result once$/],
      [join(dir, '.', 'a.json'), /is the same file as/],
      [join(dir, 'sym.json'), /sym\.json: is the same file as .*a\.json/],
      [join(dir, 'hard.json'), /hard\.json: is the same file as .*a\.json/],
      [join(dir, 'copy.json'), /copy\.json: holds run \S+, as .*a\.json does; expected each run once/],
    ] as const) {
      const r = await loadgate(['merge', a, b, second, '--out', out]);
      expect(r.code).toBe(3);
      expectOneLine(r, pattern);
    }
    const cal = await loadgate(['calibrate', '--from', a, a, a, '--out', join(dir, 'cal.json')]);
    expect(cal.code).toBe(3);
    expectOneLine(cal, /^loadgate calibrate: .*a\.json: is the same file as .*a\.json; expected each result once$/);
    const copies = await loadgate(['calibrate', '--from', a, b, join(dir, 'copy.json'), '--out', join(dir, 'cal.json')]);
    expect(copies.code).toBe(3);
    expectOneLine(copies, /copy\.json: holds run \S+, as .*a\.json does/);
    expect(existsSync(out) || existsSync(join(dir, 'cal.json'))).toBe(false);
    const fine = await loadgate(['merge', a, b, '--out', out]);
    expect(fine.code).toBe(0);
  });

  test('calibrate SPEC --out an unwritable path fails before the first replicate', async () => {
    const dir = tmp();
    server = await startHostileServer(() => undefined);
    const spec = file(dir, 'c.yml', SPEC.replace('{url: sim}', `{url: "${server.baseUrl}", model: m}`));
    const r = await loadgate(['calibrate', spec, '--replicates', '3', '--out', '/proc/nope/cal.json']);
    expect(r.code).toBe(3);
    expectOneLine(r, /^loadgate calibrate: --out \/proc\/nope\/cal\.json: the folder \/proc\/nope cannot be created/);
    expect(server.completions).toBe(0); // a replicate would have sent requests
  });
});

describe('long series render without recursion', () => {
  test('a result with 200,000 time-series points: report --html and --markdown are written, no "Maximum call stack size exceeded"', async () => {
    const dir = tmp();
    const r = synthesize({ n: 100, windowS: 10 });
    const n = 200_000;
    const series = (k: number) => Array.from({ length: n }, (_, i) => (i * k) % 7);
    r.timeseries = { ...r.timeseries, interval_s: 0.001, sent: series(1), ok: series(2), errors: series(3), output_tokens: series(5) };
    const path = file(dir, 'long.json', JSON.stringify(r));
    const out = await loadgate(['report', path, '--html', join(dir, 'r.html'), '--markdown', join(dir, 'r.md')]);
    expect(out.stderr).not.toMatch(/call stack/);
    expect(out.code).toBe(0);
    expect(readFileSync(join(dir, 'r.html'), 'utf8')).toContain('<svg');
  }, 60_000);
});

describe('headers that validate can be sent', () => {
  test('a CRLF value, transfer-encoding and content-length: validate and run exit 3 before any request', async () => {
    let served = 0;
    server = await startHostileServer(() => void served++);
    const dir = tmp();
    for (const [header, pattern] of [
      ['x-note: "a\\r\\nX-Injected: 1"', /target\.headers\.x-note has a line break or control character in its value/],
      ['transfer-encoding: chunked', /target\.headers\.transfer-encoding cannot be set: it is chosen by the HTTP client/],
      ['content-length: "10"', /target\.headers\.content-length cannot be set: it is computed from each request body/],
    ] as const) {
      const path = file(dir, 'h.yml', `target: {url: "${server.baseUrl}", model: m, headers: {${header}}}\n${shortLoad}`);
      for (const command of ['validate', 'run']) {
        const r = await loadgate([command, path, '--workers', '1', '--out', join(dir, 'r.json')].slice(0, command === 'run' ? 6 : 2));
        expect(r.code).toBe(3);
        expectOneLine(r, pattern);
      }
    }
    expect(served).toBe(0);
  }, 60_000);
});

describe('the smaller items: each one line that says what happened', () => {
  test('a recursive YAML alias, sweep.auto.growth: 1e300, calibrate --replicates -1, a ?query in target.url (spec and flag)', async () => {
    const dir = tmp();
    const cases: [string[], RegExp][] = [
      [
        ['validate', file(dir, 'a.yml', 'target: &x {url: sim, sim: {a: *x}}\n')],
        /^loadgate validate: .*a\.yml: nests deeper than 64 levels \(an alias that contains itself\?\); expected a spec a few levels deep$/,
      ],
      [
        ['validate', file(dir, 'g.yml', 'target: {url: sim}\nsweep: {auto: {growth: 1e300}}\n')],
        /^loadgate validate: .*g\.yml: sweep\.auto\.growth is 1e\+300; expected a number > 1 and ≤ 10$/,
      ],
      [
        ['calibrate', file(dir, 'c.yml', 'target: {url: sim}\n'), '--replicates', '-1'],
        /^loadgate calibrate: --replicates is "-1"; expected a whole number from 3 to 100/,
      ],
      [
        ['validate', file(dir, 'q.yml', 'target: {url: "http://127.0.0.1:9/v1?key=sk-live-x", model: m}\n')],
        /^loadgate validate: .*q\.yml: target\.url contains a \?query or #fragment \(for host 127\.0\.0\.1:9\); expected a URL without them: put the key in an environment variable/,
      ],
      [
        ['run', file(dir, 'r.yml', 'target: {url: sim}\n'), '--target-url', 'http://127.0.0.1:9/v1?key=sk-live-x'],
        /^loadgate run: --target-url contains a \?query or #fragment/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const r = await loadgate(args);
      expect(r.code).toBe(3);
      expectOneLine(r, pattern);
      expect(r.stderr).not.toContain('sk-live');
    }
  }, 60_000);
});

test('a named model the server cannot confirm (GET /models is an HTML page) is said, not skipped silently; the run goes on', async () => {
  const s = await startScriptedServer((req): Script =>
    req.url.endsWith('/models')
      ? { status: 200, headers: { 'content-type': 'text/html' }, steps: [{ send: '<html>gateway</html>' }, { end: true }] }
      : openaiStream({ tokens: 2 }),
  );
  try {
    const dir = tmp();
    const path = file(dir, 'm.yml', `target: {url: "${s.baseUrl}", model: m}\n${shortLoad}`);
    const r = await loadgate(['run', path, '--workers', '1', '--out', join(dir, 'r.json')]);
    expect(r.stderr).toContain(
      `target.model "m" not checked: ${s.baseUrl} gave no readable model list (GET /models was not a JSON list); sending it as written`,
    );
    expect(readResult(join(dir, 'r.json')).requests.by_class.ok).toBeGreaterThan(0);
  } finally {
    await s.close();
  }
}, 30_000);

test('the output folder deleted mid-run: the result is still written (the folder made again), and the lost records are said, exit 3', async () => {
  server = await startHostileServer((res) => {
    res.write(event({ choices: [{ delta: { content: 'hi' } }], usage: { completion_tokens: 1, prompt_tokens: 4 } }));
    res.write(event('[DONE]'));
  });
  const dir = tmp();
  const sub = join(dir, 'sub');
  const pending = loadgate(['run', spec(dir, server), '--workers', '1', '--out', join(sub, 'r.json'), '--records', join(sub, 'x.jsonl')]);
  const deadline = Date.now() + 10_000;
  while (server.completions === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  rmSync(sub, { recursive: true });
  const r = await pending;
  expect(r.code).toBe(3);
  expect(r.stderr).toMatch(/^loadgate run: --records .*x\.jsonl: the file was deleted or replaced during the run; the records are lost$/m);
  expect(readResult(join(sub, 'r.json')).requests.scheduled).toBeGreaterThanOrEqual(8);
}, 30_000);
