import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory whose package.json is loadgate's, found by walking up from this module: the
 * same answer from src/ (under ts-jest) and from the bundle in dist/, so separately bundled
 * entry points (dist/sim.js, dist/worker.js) can be found next to the code that starts them.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'loadgate') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the loadgate package root (no package.json named "loadgate" above this file)');
    dir = parent;
  }
}
