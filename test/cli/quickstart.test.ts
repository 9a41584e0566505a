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
import { loadgate } from '../fixtures/cli.js';

test('the README quick start runs against the simulator, exits 0 and writes a valid result', async () => {
  const readme = readFileSync('README.md', 'utf8');
  expect(readme.split('\n').slice(0, 12).join('\n')).toContain('npm ci && npm run quickstart');
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const [, cmd] = /node bin\/loadgate\.js (run .*?) --out/.exec(pkg.scripts.quickstart)!;
  const out = join(mkdtempSync(join(tmpdir(), 'loadgate-quickstart-')), 'quickstart.json');
  const r = await loadgate([...cmd.split(' '), '--out', out]);
  expect(r.stdout).toContain('Verdict     PASS');
  expect(r.code).toBe(0);
  const result = readResult(out); // validates against the result's JSON Schema
  expect(result.schema_version).toBe(1);
  expect(result.validity.checks.filter((c) => !c.ok).map((c) => c.message)).toEqual([]);
  expect(result.validity.valid).toBe(true);
  expect(result.requests.window.by_class.ok).toBeGreaterThanOrEqual(150);
});
