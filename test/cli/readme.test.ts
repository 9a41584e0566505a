/**
 * The README is a newcomer's entry: it opens with the two commands a fresh machine runs (the
 * main job, then the tests), stays short, links only to files that exist, and every command
 * line it shows uses flags the command has.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = process.cwd();
const CLI = join(ROOT, 'bin', 'loadgate.js');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

test('opens with the main job, then the tests, each one command after npm ci', () => {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim());
  expect(blocks.slice(0, 2)).toEqual(['npm ci && npm run quickstart', 'npm ci && npm test']);
  expect(readme.indexOf('npm run quickstart')).toBeLessThan(readme.indexOf('## '));
  // Both scripts exist and do what the README says: a run of the quick start spec, and the tests.
  expect(pkg.scripts.quickstart).toContain('run examples/quickstart.yml');
  // npm test builds, then runs every jest file through scripts/test.mjs, type-checking beside them.
  expect(pkg.scripts.test).toContain('node scripts/test.mjs --typecheck');
  expect(readFileSync(join(ROOT, 'scripts', 'test.mjs'), 'utf8')).toContain("'jest', 'bin', 'jest.js'");
});

test('is at most 250 lines', () => {
  expect(readme.split('\n').length).toBeLessThanOrEqual(250);
});

test('every relative link points at a file or folder of the repository', () => {
  const links = [...readme.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
  expect(links.length).toBeGreaterThan(15);
  for (const l of links) expect(`${l} ${existsSync(join(ROOT, l)) ? 'exists' : 'missing'}`).toBe(`${l} exists`);
});

test('every in-page link names a heading', () => {
  const anchors = new Set(
    [...readme.matchAll(/^#+ (.+)$/gm)].map((m) =>
      m[1]
        .toLowerCase()
        .replace(/[^\w\s-]/g, '')
        .replace(/\s/g, '-'),
    ),
  );
  for (const [, a] of readme.matchAll(/\]\(#([^)]+)\)/g)) expect(`#${a} ${anchors.has(a) ? 'found' : 'missing'}`).toBe(`#${a} found`);
});

test('every loadgate command line it shows uses flags the command has', async () => {
  const lines = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n'));
  const uses = lines.flatMap((l) => [...l.matchAll(/loadgate(?:\.js)? ([a-z]+)((?: [^#\n]*)?)/g)]);
  const checked = new Set<string>();
  for (const [, command, rest] of uses) {
    const flags = rest.match(/--[a-z][a-z-]*/g) ?? [];
    if (command === 'version' || flags.length === 0) continue;
    const { stdout } = await run(process.execPath, [CLI, command, '--help']);
    for (const f of flags) expect(`${command} ${stdout.includes(f) ? f : `has no ${f}`}`).toBe(`${command} ${f}`);
    checked.add(command);
  }
  expect([...checked].sort()).toEqual(expect.arrayContaining(['init', 'run', 'sweep']));
});

test('names every command the CLI lists', async () => {
  const { stdout } = await run(process.execPath, [CLI, '--help']);
  const section = stdout.slice(stdout.indexOf('Commands:\n') + 10).split('\n\n')[0];
  const commands = section.split('\n').map((l) => l.trim().split(/\s+/)[0]);
  expect(commands).toContain('init');
  for (const c of commands) expect(`${c} ${readme.includes(`\`loadgate ${c}`) ? 'named' : 'missing'}`).toBe(`${c} named`);
});
