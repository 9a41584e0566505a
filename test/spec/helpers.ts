import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes `text` to a fresh temp directory and returns the file's path. */
export function tempSpec(text: string, name = 'bench.yml'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'loadgate-spec-')), name);
  writeFileSync(path, text);
  return path;
}

/** The SpecError message `fn` throws; fails the test if it throws nothing or something else. */
export function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect((err as Error).name).toBe('SpecError');
    return (err as Error).message;
  }
  throw new Error('expected a SpecError, got none');
}
