import { closeSync, mkdirSync, openSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** An output file that cannot be written, in one line naming it (`what`: the flag or input that gave it). */
export class OutputFileError extends Error {}

const WRITE_FAILURES: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENOENT: 'no such place',
  EISDIR: 'is a directory',
  ENAMETOOLONG: 'the name is too long',
};
const why = (err: unknown) => {
  const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
  return WRITE_FAILURES[code] ?? code;
};

/** Deeper than any real path; a guard so the walk up can never loop. */
const MAX_DEPTH = 256;

/**
 * `mkdir -p` that gives up instead of looping. Node's recursive mkdirSync spins forever on a
 * parent that exists but refuses children with ENOENT (`/proc/nope`: 100 % CPU,
 * SIGTERM ignored because the loop never yields). Here each missing folder is created once,
 * top down, and the first failure is the answer.
 */
function makeFolders(path: string, what: string): void {
  const missing: string[] = [];
  let d = resolve(dirname(path));
  for (let i = 0; i < MAX_DEPTH; i++) {
    try {
      if (statSync(d).isDirectory()) break;
      throw new OutputFileError(`${what} ${path}: ${d} is a file, not a folder; expected a path in a folder`);
    } catch (err) {
      if (err instanceof OutputFileError) throw err;
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new OutputFileError(`${what} ${path}: the folder ${d} cannot be used (${why(err)}); expected a writable place`);
    }
    missing.unshift(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && statSync(m).isDirectory()) continue;
      throw new OutputFileError(`${what} ${path}: the folder ${m} cannot be created (${why(err)}); expected a writable place`);
    }
  }
}

/**
 * Checks, before a run sends its first request, that `path` can be written: its folders exist
 * or are created, it is not a directory, and it can be opened. A file written whole
 * (writeFileAtomic: temp file and rename) must be a regular file or not exist yet — renaming
 * over a device would replace it — and a file can be made beside it (the same temp file,
 * removed at once). A stream (`stream: true`, the records) may also be a device or a pipe,
 * and an existing one is opened for appending, which changes nothing. A run is never measured
 * only to be lost at the end.
 */
export function checkOutputPath(path: string, what: string, o: { stream?: boolean } = {}): void {
  if (path === '') throw new OutputFileError(`${what} is empty; expected a file path`);
  let exists = false;
  try {
    const st = statSync(path);
    exists = true;
    if (st.isDirectory()) throw new OutputFileError(`${what} ${path}: is a directory; expected a file path`);
    if (!st.isFile() && !o.stream)
      throw new OutputFileError(`${what} ${path}: is not a regular file (a device, pipe or socket); expected a file path`);
  } catch (err) {
    if (err instanceof OutputFileError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new OutputFileError(`${what} ${path}: cannot be used (${why(err)})`);
  }
  makeFolders(path, what);
  const probe = o.stream && exists ? path : tempOf(path);
  try {
    closeSync(openSync(probe, probe === path ? 'a' : 'w'));
    if (probe !== path) unlinkSync(probe);
  } catch (err) {
    throw new OutputFileError(`${what} ${path}: cannot be written (${why(err)}); expected a writable place`);
  }
}

/** Each output checked once, the first problem thrown. */
export function checkOutputPaths(outputs: readonly { path: string | undefined; what: string }[]): void {
  for (const o of outputs) if (o.path !== undefined) checkOutputPath(o.path, o.what);
}

const tempOf = (path: string) => `${path}.${process.pid}.tmp`;

/**
 * Writes via a temp file and rename, so a reader never sees half a result even if we are killed
 * mid-write. A failure is one OutputFileError line; the temp file is not left behind.
 */
export function writeFileAtomic(path: string, text: string, what = 'output file'): void {
  makeFolders(path, what);
  const tmp = tempOf(path);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (err) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // The write failed already; that is the message.
    }
    throw new OutputFileError(`${what} ${path}: cannot be written (${why(err)})`);
  }
}
