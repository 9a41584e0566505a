/**
 * What `npm pack` ships works on its own: the tarball holds the bundle, the bin, the action,
 * the JSON Schemas, the LICENSE and the CHANGELOG (and no sources or tests); it declares no
 * dependencies (the bundle holds them), so installing it into an empty project adds that one
 * package; its bin prints the version, writes specs with `init` (for the simulator, and
 * for a real server that is not the simulator), validates them and runs them to a verdict.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import type { ScriptedServer } from '../fixtures/scripted-server.js';
import { startTinyOpenAi } from '../fixtures/tiny-openai.js';
import { ROOT, tempDir } from '../action/harness.js';

const exec = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

interface Packed {
  filename: string;
  files: { path: string }[];
}

let packed: Packed;
let project: string;
let bin: string;
let server: ScriptedServer;

/** The installed bin, as `npx loadgate` runs it; every outcome is returned, not thrown. */
async function loadgate(args: string[], cwd = project): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await exec(bin, args, { cwd, timeout: 90_000 });
    return { code: 0, ...r };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

beforeAll(async () => {
  const dest = tempDir('loadgate-pack-');
  const { stdout } = await exec('npm', ['pack', '--json', '--pack-destination', dest], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  packed = (JSON.parse(stdout) as Packed[])[0];
  project = tempDir('loadgate-project-');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-service', version: '1.0.0', private: true }));
  await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', join(dest, packed.filename)], {
    cwd: project,
    timeout: 180_000,
  });
  bin = join(project, 'node_modules', '.bin', 'loadgate');
  server = await startTinyOpenAi();
}, 240_000);
afterAll(() => server?.close());

test('the tarball ships the bundle, the bin, the action, the schemas, LICENSE and CHANGELOG, and no sources', () => {
  const paths = packed.files.map((f) => f.path);
  for (const p of [
    'bin/loadgate.js',
    'dist/cli.js',
    'dist/index.js',
    'dist/validators.generated.cjs',
    'action.yml',
    'LICENSE',
    'CHANGELOG.md',
    'README.md',
    'package.json',
  ])
    expect(paths).toContain(p);
  for (const s of ['spec', 'result', 'sweep', 'calibration']) expect(paths).toContain(`schema/${s}.schema.json`);
  expect(paths.filter((p) => /^(src|test|scripts)\//.test(p))).toEqual([]);
  // Everything the bundle runs is inside it: the package asks for nothing else, and the install added nothing else.
  const installed = JSON.parse(readFileSync(join(project, 'node_modules', 'loadgate', 'package.json'), 'utf8')) as {
    dependencies?: object;
  };
  expect(installed.dependencies).toBeUndefined();
  expect(readdirSync(join(project, 'node_modules')).filter((d) => !d.startsWith('.'))).toEqual(['loadgate']);
});

test('the installed bin prints its version, and --help lists --version and init', async () => {
  expect(await loadgate(['--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  const help = await loadgate(['--help']);
  expect(help.stdout).toContain('--version');
  expect(help.stdout).toMatch(/^ {2}init /m);
});

type Outcome = Awaited<ReturnType<typeof loadgate>>;

/** init for the simulator in a new folder, then validate and run: every outcome, checked by the test. */
async function simProject(): Promise<{ dir: string; init: Outcome; validate: Outcome; run: Outcome }> {
  const dir = tempDir('loadgate-project-sim-');
  const init = await loadgate(['init', '--workflow', 'pr'], dir);
  const validate = await loadgate(['validate', 'bench/chat.yml'], dir);
  const run = await loadgate(['run', 'bench/chat.yml', '--duration', '3s', '--warmup', '1s', '--out', 'r.json'], dir);
  return { dir, init, validate, run };
}

/** init against the fixture server in the project, then its four specs validated and the gate spec run. */
async function serverProject(): Promise<{ init: Outcome; validate: Outcome[]; run: Outcome }> {
  const init = await loadgate(['init', '--target-url', server.baseUrl, '--workflow', 'all']);
  const validate = await Promise.all(['chat', 'soak', 'release', 'capacity'].map((f) => loadgate(['validate', `bench/${f}.yml`])));
  const run = await loadgate(['run', 'bench/chat.yml', '--duration', '5s', '--warmup', '1s', '--out', 'r.json']);
  return { init, validate, run };
}

/**
 * The two projects are set up and run at once: each runs to any verdict, so sharing the cores
 * changes nothing the tests check, and neither reads the other's folder.
 */
let projects: { sim: ReturnType<typeof simProject>; server: ReturnType<typeof serverProject> };
beforeAll(() => {
  projects = { sim: simProject(), server: serverProject() };
  // Awaited by the tests; a failure here is theirs to report, not an unhandled rejection.
  for (const p of Object.values(projects)) p.catch(() => undefined);
});
afterAll(() => Promise.allSettled(Object.values(projects)), 180_000);

test('init for the simulator, then validate and run it to a verdict', async () => {
  const { dir, init, validate, run } = await projects.sim;
  expect(init.code).toBe(0);
  const spec = readFileSync(join(dir, 'bench/chat.yml'), 'utf8');
  // The schema reference resolves to the installed package's own file.
  const ref = /\$schema=(\S+)/.exec(spec)![1];
  expect(ref).toMatch(/^https:\/\/loadgate\.dev\/schema\/spec\.schema\.json$|spec\.schema\.json$/);
  expect(validate.code).toBe(0);
  expect(run.stdout).toMatch(/Verdict\s+(PASS|FAIL|INCONCLUSIVE)/);
  expect(existsSync(join(dir, 'r.json'))).toBe(true);
}, 120_000);

test('init against a server that is not the simulator: its specs validate and run, its workflows name files that exist', async () => {
  const { init, validate, run } = await projects.server;
  expect(init.stderr).toBe('');
  expect(init.code).toBe(0);
  // Inside the project the spec names the installed schema by a relative path.
  expect(readFileSync(join(project, 'bench/chat.yml'), 'utf8').split('\n')[0]).toBe(
    '# yaml-language-server: $schema=../node_modules/loadgate/schema/spec.schema.json',
  );
  expect(validate.map((v) => v.code)).toEqual([0, 0, 0, 0]);
  expect(run.stdout).toMatch(/Verdict\s+(PASS|FAIL|INCONCLUSIVE)/);
  const result = JSON.parse(readFileSync(join(project, 'r.json'), 'utf8')) as { target: { simulator: boolean; model: string } };
  expect(result.target).toMatchObject({ simulator: false, model: 'acme-chat-7b' });
  for (const wf of ['pr', 'nightly', 'release']) {
    const doc = parse(readFileSync(join(project, `.github/workflows/loadgate-${wf}.yml`), 'utf8')) as {
      jobs: Record<string, { steps: { with?: Record<string, unknown> }[] }>;
    };
    const paths = Object.values(doc.jobs)
      .flatMap((j) => j.steps)
      .flatMap((s) => ['spec', 'baseline', 'calibration'].map((k) => s.with?.[k]))
      .filter((v): v is string => typeof v === 'string');
    expect(paths.length).toBeGreaterThan(0);
    for (const p of paths) expect(`${p} ${existsSync(join(project, p)) ? 'exists' : 'missing'}`).toBe(`${p} exists`);
  }
}, 180_000);
