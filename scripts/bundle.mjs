// One bundler (esbuild): fast, zero-config ESM output for Node, and it bundles the
// ESM-only @actions/* packages without a transform step. Four entry points share one build.
//
// The validators compiled ahead of time (src/spec/validators.generated.cjs, some 1.7 MB of Ajv's
// generated code) are not bundled: the code reads them with require() beside itself when it first
// validates, so they are built into dist/ under the same name, with Ajv's runtime helpers, as
// CommonJS, and printed without indentation, which on code nested this deep would triple its size.
import { build } from 'esbuild';

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
await build({
  ...common,
  // CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __lgCreateRequire } from 'node:module'; const require = __lgCreateRequire(import.meta.url);" },
  entryPoints: {
    index: 'src/action/index.ts',
    cli: 'src/cli/index.ts',
    sim: 'src/sim/index.ts',
    worker: 'src/run/worker.ts',
  },
  outdir: 'dist',
});
