import { closeSync, openSync, readSync } from 'node:fs';
import { bytes } from './limits.js';

/** Why a file could not be read, as the end of a one-line message. */
const READ_FAILURES: Record<string, string> = {
  ENOENT: 'file not found',
  EACCES: 'file is not readable (permission denied)',
  EPERM: 'file is not readable (permission denied)',
  EISDIR: 'is a directory',
};

/** A file that cannot be used as input; `reason` completes "<path>: …"; `tooLarge` when it passed the cap. */
export class ReadFileError extends Error {
  constructor(
    readonly reason: string,
    readonly tooLarge = false,
  ) {
    super(reason);
  }
}

/**
 * Reads a UTF-8 file of at most `maxBytes`, in chunks, and stops one byte past the cap: a
 * device (`/dev/zero`), a pipe or a huge file fails in bounded time and memory instead of
 * growing without end, as readFileSync would.
 */
export function readFileCapped(path: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new ReadFileError(failure(err));
  }
  try {
    const buf = Buffer.allocUnsafe(Math.min(maxBytes + 1, 1 << 20));
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new ReadFileError(`is larger than ${bytes(maxBytes)}`, true);
      parts.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(parts, total).toString('utf8');
  } catch (err) {
    if (err instanceof ReadFileError) throw err;
    throw new ReadFileError(failure(err));
  } finally {
    closeSync(fd);
  }
}

function failure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code ?? 'unknown error';
  return READ_FAILURES[code] ?? `cannot be read (${code})`;
}
