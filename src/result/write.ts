import { closeSync, mkdirSync, openSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';

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

/** A file a command reads or writes, and how its messages name it (a flag, an input, "the spec"). */
export interface NamedPath {
  path: string | undefined;
  what: string;
  /** An output written as a stream (the records): it may be a device or a pipe (checkOutputPath). */
  stream?: boolean;
}

/**
 * Each output checked once, the first problem thrown: first that no output is the same file
 * as an input or as another output (checkDistinctPaths), then that each can be written.
 */
export function checkOutputPaths(outputs: readonly NamedPath[], inputs: readonly NamedPath[] = []): void {
  checkDistinctPaths(outputs, inputs);
  for (const o of outputs) if (o.path !== undefined) checkOutputPath(o.path, o.what, { stream: o.stream });
}

/**
 * The file a path names, whatever the spelling: `./a.json`, a symbolic link to it and a hard
 * link all give the same identity (device and inode when it exists; else the real path of its
 * folder and its name, the file it would become).
 */
export function fileIdentity(path: string): string {
  try {
    const st = statSync(path);
    return `inode:${st.dev}:${st.ino}`;
  } catch {
    let folder = resolve(dirname(path));
    try {
      folder = realpathSync(folder);
    } catch {
      // A folder still to be made: nothing can be inside it yet.
    }
    return `path:${resolve(folder, basename(path))}`;
  }
}

/**
 * Refuses an output that would replace an input or another output of the same command
 * (`run s.yml --out s.yml`, `--out X --records X`, `report R --html R`): whatever it named,
 * it would be lost to the write.
 */
export function checkDistinctPaths(outputs: readonly NamedPath[], inputs: readonly NamedPath[]): void {
  const seen = new Map<string, NamedPath>();
  for (const i of inputs) if (i.path !== undefined && !seen.has(fileIdentity(i.path))) seen.set(fileIdentity(i.path), i);
  const inputIds = new Set(seen.keys());
  for (const o of outputs) {
    if (o.path === undefined || o.path === '') continue;
    const id = fileIdentity(o.path);
    const other = seen.get(id);
    if (other)
      throw new SameFileError(
        `${o.what} ${o.path}: is the same file as ${other.what}${other.path === o.path ? '' : ` (${other.path})`}; expected a path of its own (${inputIds.has(id) ? 'writing it would replace an input' : 'each output is written whole'})`,
      );
    seen.set(id, o);
  }
}

/** The same input given twice. */
export class SameFileError extends Error {}

/**
 * Refuses the same file given twice as input, through any spelling or link (`a.json ./a.json`,
 * a symbolic or hard link); a copy is caught by its run id (checkDistinctRuns in merge.ts).
 */
export function checkDistinctInputs(paths: readonly string[]): void {
  const byFile = new Map<string, string>();
  for (const path of paths) {
    const id = fileIdentity(path);
    const same = byFile.get(id);
    if (same !== undefined) throw new SameFileError(`${path}: is the same file as ${same}; expected each result once`);
    byFile.set(id, path);
  }
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
