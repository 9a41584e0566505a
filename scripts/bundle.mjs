// One bundler (esbuild): fast, zero-config ESM output for Node, and it bundles the
// ESM-only @actions/* packages without a transform step. Five entry points share one build: the
// Action, the CLI, the simulator, the worker thread, and the clock (src/time.ts) alone, for the
// fixture servers and scripts that stamp times in plain JavaScript.
//
// The validators compiled ahead of time (src/spec/validators.generated.cjs, some 1.7 MB of Ajv's
// generated code) are not bundled: the code reads them with require() beside itself when it first
// validates, so they are built into dist/ under the same name, with Ajv's runtime helpers, as
// CommonJS, and printed without indentation, which on code nested this deep would triple its size.
import { build } from 'esbuild';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  splitting: false,
  legalComments: 'none',
  logLevel: 'warning',
};

await build({
  ...common,
  format: 'cjs',
  entryPoints: ['src/spec/validators.generated.cjs'],
  outfile: 'dist/validators.generated.cjs',
  minifyWhitespace: true,
});
// src/ imports undici by its package name; in the bundle those imports get its parts instead.
// @actions/http-client and @actions/github each hold their own copy of undici 6, the same
// version: both take http-client's, so the Action's bundle holds it once.
const here = dirname(fileURLToPath(import.meta.url));
const undiciImports = {
  name: 'undici-imports',
  setup(b) {
    const shim = join(here, 'undici-lean.cjs');
    const actionsUndici = join(here, '..', 'node_modules', '@actions', 'http-client');
    b.onResolve({ filter: /^undici$/ }, (args) => {
      if (args.importer.includes(`${sep}src${sep}`)) return { path: shim };
      if (args.importer.includes(`${sep}@actions${sep}`) && args.pluginData !== 'deduped')
        return b.resolve('undici', { kind: args.kind, resolveDir: actionsUndici, pluginData: 'deduped' });
      return undefined;
    });
  },
};

await build({
  ...common,
  plugins: [undiciImports],
  // CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __lgCreateRequire } from 'node:module'; const require = __lgCreateRequire(import.meta.url);" },
  entryPoints: {
    index: 'src/action/index.ts',
    cli: 'src/cli/index.ts',
    sim: 'src/sim/index.ts',
    worker: 'src/run/worker.ts',
    clock: 'src/time.ts',
  },
  outdir: 'dist',
});
