/**
 * The README's first command, as a newcomer runs it: the quick-start benchmark against the
 * embedded simulator, with a verdict. It asserts the run's validity (the generator kept its
 * schedule, its loop and its CPU within limits), which is the generator's own measurement, so the
 * file runs alone (test/solo-files.json): beside another timed file its schedule lag p99 went
 * past the 5 ms limit.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readResult } from '../../src/result/load.js';
import type { Result } from '../../src/result/types.js';
import { loadgate } from '../fixtures/cli.js';

/** One quick-start run: its verdict line, exit code and result. */
async function quickstart(cmd: string) {
  const out = join(mkdtempSync(join(tmpdir(), 'loadgate-quickstart-')), 'quickstart.json');
  const r = await loadgate([...cmd.split(' '), '--out', out]);
  expect(r.stdout).toContain('Verdict     PASS');
  expect(r.code).toBe(0);
  return readResult(out); // validates against the result's JSON Schema
}

const failing = (result: Result) => result.validity.checks.filter((c) => !c.ok);

test('the README quick start runs against the simulator, exits 0 and writes a valid result', async () => {
  const readme = readFileSync('README.md', 'utf8');
  expect(readme.split('\n').slice(0, 12).join('\n')).toContain('npm ci && npm run quickstart');
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const [, cmd] = /node bin\/loadgate\.js (run .*?) --out/.exec(pkg.scripts.quickstart)!;
  let result = await quickstart(cmd);
  // A virtual machine that stops this one for a few ms inside the 10 s window moves the schedule
  // lag p99 (the third-latest of ~220 sends) past 5 ms, and the run rightly says it is not valid.
  // That alone earns one more run, which must then be valid on every check: a generator that
  // really fell behind its schedule would fall behind twice.
  if (failing(result).length === 1 && failing(result)[0].name === 'schedule_lag') result = await quickstart(cmd);
  expect(result.schema_version).toBe(1);
  expect(failing(result).map((c) => c.message)).toEqual([]);
  expect(result.validity.valid).toBe(true);
  expect(result.requests.window.by_class.ok).toBeGreaterThanOrEqual(150);
}, 60_000);
