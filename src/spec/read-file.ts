import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { bytes, figure } from './limits.js';

/**
 * Every file loadgate reads as input (spec, dataset, length file, calibration, result,
 * simulator config, handoff) comes through here: only a regular file, at most so many bytes
 * and lines, and every failure a reason that names no byte of the file. A message that quoted
 * the file would print whatever it holds (a `.env` given by mistake, `/etc/passwd`) into logs
 * and job summaries.
 */

/** Why a file could not be read, as the end of a one-line message. */
const READ_FAILURES: Record<string, string> = {
  ENOENT: 'file not found',
  EACCES: 'file is not readable (permission denied)',
  EPERM: 'file is not readable (permission denied)',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ELOOP: 'the path is a loop of symbolic links',
  ENAMETOOLONG: 'the name is too long',
};

/** A file that cannot be used as input; `reason` completes "<path>: …"; `tooLarge` when it passed a cap. */
export class ReadFileError extends Error {
  constructor(
    readonly reason: string,
    readonly tooLarge = false,
  ) {
    super(reason);
  }
}

export interface ReadCaps {
  /** Lines (line feeds, plus an unterminated last line) the file may hold. */
  maxLines?: number;
}

/**
 * Reads a UTF-8 file of at most `maxBytes` (and `maxLines`), in chunks, stopping one byte (or
 * line) past a cap. Opened without blocking and refused unless it is a regular file, so a
 * device (`/dev/zero`), a pipe nobody writes to or a socket fails at once instead of growing
 * without end or blocking forever, as readFileSync would.
 */
export function readFileCapped(path: string, maxBytes: number, caps: ReadCaps = {}): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new ReadFileError(failure(err));
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new ReadFileError('is a directory');
    if (!st.isFile()) throw new ReadFileError('is not a regular file (a device, pipe or socket)');
    if (st.size > maxBytes) throw new ReadFileError(`is larger than ${bytes(maxBytes)}`, true);
    return readCapped(fd, maxBytes, caps.maxLines ?? Infinity);
  } catch (err) {
    if (err instanceof ReadFileError) throw err;
    throw new ReadFileError(failure(err));
  } finally {
    closeSync(fd);
  }
}

/** The bytes of an open regular file, capped again while reading: a file may grow after its size was read. */
function readCapped(fd: number, maxBytes: number, maxLines: number): string {
  const buf = Buffer.allocUnsafe(Math.min(maxBytes + 1, 1 << 20));
  const parts: Buffer[] = [];
  let total = 0;
  let lines = 0;
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    total += n;
    if (total > maxBytes) throw new ReadFileError(`is larger than ${bytes(maxBytes)}`, true);
    for (let at = buf.indexOf(0x0a); at !== -1 && at < n; at = buf.indexOf(0x0a, at + 1)) lines++;
    if (lines > maxLines) throw new ReadFileError(`has more than ${figure(maxLines)} lines`, true);
    parts.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(parts, total).toString('utf8');
}

function failure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
  return READ_FAILURES[code] ?? `cannot be read (${code})`;
}

/**
 * What is wrong with text JSON.parse refused, without quoting it: V8's own message quotes the
 * text around the error (`Unexpected token 'r', "root:x:0:0:"... is not valid JSON`), which
 * would print the file's contents.
 */
export function jsonProblem(err: unknown, text?: string): string {
  const message = err instanceof Error ? err.message : '';
  if (/Unexpected end of JSON input/.test(message)) return 'it ends in the middle of a value';
  const at = /at position (\d+)/.exec(message);
  if (!at) return 'a syntax error';
  const pos = Number(at[1]);
  if (text === undefined) return `a syntax error at character ${pos + 1}`;
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `a syntax error at line ${line}, column ${pos - lineStart + 1}`;
}
