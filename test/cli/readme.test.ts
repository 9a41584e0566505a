/**
 * #16.9: the README's CLI reference is generated from the help the commands print (npm run
 * docs:cli), and checked here against the real CLI, so it cannot drift again.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLI = join(process.cwd(), 'bin', 'loadgate.js');
const SCRIPT = join(process.cwd(), 'scripts', 'docs-cli.mjs');
// Every command the top-level help lists; the new ones of #12 and #17 (calibrate, plan) among them.
const COMMANDS = ['run', 'sweep', 'validate', 'compare', 'merge', 'report', 'calibrate', 'plan', 'sim'];

async function exitOf(args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, args);
    return { code: 0, stderr };
  } catch (e) {
    return { code: (e as { code: number }).code, stderr: (e as { stderr: string }).stderr };
  }
}

const generated = (readme: string) => readme.slice(readme.indexOf('<!-- cli-help:begin'), readme.indexOf('<!-- cli-help:end -->'));

test('the README CLI block is exactly what the commands print (docs-cli --check)', async () => {
  const r = await exitOf([SCRIPT, '--check']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
});

test('every flag of every command’s help appears in the README, the ones the issue found missing included', async () => {
  const block = generated(readFileSync('README.md', 'utf8'));
  const helps = await Promise.all(COMMANDS.map((command) => run(process.execPath, [CLI, command, '--help'])));
  for (const [i, command] of COMMANDS.entries()) {
    const flags = new Set(helps[i].stdout.match(/--[a-z][a-z-]*/g));
    expect(flags.size).toBeGreaterThan(0);
    for (const flag of flags) expect(`${command} ${block.includes(flag) ? flag : `missing ${flag}`}`).toBe(`${command} ${flag}`);
  }
  for (const [command, flag] of [
    ['sim', '--host'],
    ['sim', '--config-json'],
    ['merge', '--force'],
    ['run', '--baseline-out'],
    ['report', '--spec'],
    ['compare', '--allow-missing-baseline'],
  ])
    expect(block).toMatch(new RegExp(`\\$ loadgate ${command} --help[\\s\\S]*?  ${flag}\\b`));
});

test('a stale block fails the check, and docs:cli rewrites it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'loadgate-readme-'));
  const copy = join(dir, 'README.md');
  copyFileSync('README.md', copy);
  writeFileSync(copy, readFileSync(copy, 'utf8').replace('  --baseline-out FILE', '  --baseline-oot FILE'));
  const stale = await exitOf([SCRIPT, '--check', '--readme', copy]);
  expect(stale.code).toBe(1);
  expect(stale.stderr).toContain("the CLI block differs from the commands' --help; run npm run docs:cli");
  expect((await exitOf([SCRIPT, '--readme', copy])).code).toBe(0);
  expect(readFileSync(copy, 'utf8')).toBe(readFileSync('README.md', 'utf8'));
});
