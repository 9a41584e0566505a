/**
 * The generated files (schema/*.json, docs/{spec,results,metrics,action,cli}.md, CONTRIBUTING's
 * stage table) are what their sources give today, and the shipped spec schema accepts and
 * rejects what the loader does, so editors and `loadgate validate` agree.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { generatedFiles, REGENERATE, ROOT, stagesBlock } from './pages.js';
import { LAYERS } from '../layers.js';

const run = promisify(execFile);
const files = await generatedFiles();

test.each([...files.keys()])(`%s is current (else: ${REGENERATE})`, (path) => {
  const current = readFileSync(join(ROOT, path), 'utf8');
  expect(current === files.get(path) ? 'current' : `stale: run ${REGENERATE}`).toBe('current');
});

test('the check script, on a stale copy, names the file and the command that regenerates it', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'loadgate-docs-'));
  for (const [path, text] of files) {
    mkdirSync(dirname(join(copy, path)), { recursive: true });
    writeFileSync(join(copy, path), path === 'docs/metrics.md' ? text.replace('coordinated-omission safe', 'safe') : text);
  }
  const stale = await run(process.execPath, [join(ROOT, 'scripts/docs.mjs'), '--check', '--against', copy]).catch(
    (e: { code: number; stderr: string }) => e,
  );
  expect(stale).toMatchObject({ code: 1, stderr: `stale generated files: docs/metrics.md; run ${REGENERATE}\n` });
}, 120_000);

test('the stage table lists every stage of LAYERS, in order', () => {
  const block = stagesBlock();
  const order = LAYERS.flatMap((l) => l.stages).map((s) => block.indexOf(`\`${s}\``));
  expect(order.every((i) => i > 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
  expect(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8')).toContain(block);
});

describe('schema/spec.schema.json', () => {
  const schema = JSON.parse(readFileSync(join(ROOT, 'schema/spec.schema.json'), 'utf8')) as { $id: string };
  const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
  const specs = ['examples', 'examples/patterns', 'examples/sim'].flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith('.yml'))
      .map((f) => join(dir, f)),
  );

  test('has its $id, and every example spec names it on its first line', () => {
    expect(schema.$id).toBe('https://loadgate.dev/schema/spec.schema.json');
    expect(specs.length).toBeGreaterThan(8);
    for (const f of specs) {
      const first = readFileSync(join(ROOT, f), 'utf8').split('\n')[0];
      expect(`${f}: ${first}`).toMatch(/^[^:]+: # yaml-language-server: \$schema=(\.\.\/)+schema\/spec\.schema\.json$/);
    }
  });

  test.each(['examples/quickstart.yml', 'examples/chat.yml', 'examples/sweep.yml', 'examples/patterns/soak.yml'])(
    'accepts %s as written (shorthands included)',
    (f) => {
      const ok = validate(parse(readFileSync(join(ROOT, f), 'utf8')));
      expect(ok ? [] : validate.errors).toEqual([]);
    },
  );

  test('rejects an unknown key and a wrong type, as validate does', () => {
    expect(validate({ target: { url: 'sim' }, lod: {} })).toBe(false);
    expect(validate({ target: { url: 'sim' }, load: { rate: 'fast' } })).toBe(false);
    expect(validate({ target: { url: 'sim' }, workload: { input_tokens: 64 }, sweep: 'auto' })).toBe(true);
  });
});
