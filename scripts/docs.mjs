// Writes every generated file (schema/*.json, the reference pages in docs/, CONTRIBUTING.md's
// stage table, src/spec/validators.generated.cjs) from its source of truth: test/docs/pages.ts,
// bundled here with esbuild so this script runs on plain Node. `--check` writes nothing and exits 1 naming each stale file;
// `--against DIR` works on a copy under DIR.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Inside node_modules, so the bundle's imports of packages (kept external) resolve.
const out = join(root, 'node_modules', '.cache', `loadgate-docs-${process.pid}.mjs`);
await build({
  entryPoints: [join(root, 'test/docs/pages.ts')],
  outfile: out,
  bundle: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  logLevel: 'warning',
});
process.env.LOADGATE_ROOT = root;
let generated;
try {
  generated = await import(pathToFileURL(out).href);
} finally {
  rmSync(out, { force: true });
}
const { generatedFiles, REGENERATE } = generated;

const argv = process.argv.slice(2);
const check = argv.includes('--check');
// --against DIR: read and write the generated files under DIR instead (a copy, for the tests).
const into = argv.includes('--against') ? argv[argv.indexOf('--against') + 1] : root;
const stale = [];
for (const [path, text] of await generatedFiles()) {
  const file = join(into, path);
  const current = existsSync(file) ? readFileSync(file, 'utf8') : null;
  if (current === text) continue;
  stale.push(path);
  if (!check) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}
if (check && stale.length > 0) {
  console.error(`stale generated files: ${stale.join(', ')}; run ${REGENERATE}`);
  process.exit(1);
}
console.log(stale.length === 0 ? 'generated files are current' : `rewrote ${stale.join(', ')}`);
