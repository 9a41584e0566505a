// One bundler (esbuild): fast, zero-config ESM output for Node, and it bundles the
// ESM-only @actions/* packages without a transform step. Four entry points share one build.
import { build } from 'esbuild';

await build({
  entryPoints: {
    index: 'src/action/index.ts',
    cli: 'src/cli/index.ts',
    sim: 'src/sim/index.ts',
    worker: 'src/run/worker.ts',
  },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  splitting: false,
  legalComments: 'none',
  logLevel: 'warning',
  // CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __lgCreateRequire } from 'node:module'; const require = __lgCreateRequire(import.meta.url);" },
});
