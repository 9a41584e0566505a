import { createWriteStream, fstatSync, openSync, statSync } from 'node:fs';
import { checkOutputPath, OutputFileError } from './write.js';

/** The raw JSONL records of a run, one line per request, written as they finish. */
export interface RecordsFile {
  write: (line: string) => void;
  /** Flushes and closes (once; later calls get the same answer); resolves with the one-line reason when writing failed at any point. */
  close(): Promise<string | undefined>;
}

/**
 * Opens the records file before the run (a bad path fails then, as one line, not as Node's
 * unhandled 'error' event mid-run). A write that fails later (a full disk) stops the
 * records, never the run: the result is still written, and close() says what went wrong.
 */
export function openRecordsFile(path: string, what = '--records'): RecordsFile {
  checkOutputPath(path, what, { stream: true });
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (err) {
    throw new OutputFileError(`${what} ${path}: cannot be opened (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const stream = createWriteStream(path, { fd });
  let failed: string | undefined;
  stream.on('error', (err: NodeJS.ErrnoException) => {
    failed ??= `${what} ${path}: writing the records failed (${err.code ?? err.message}); the records are incomplete`;
  });
  // A file (or its folder) removed during the run takes the records written to it along:
  // said at the end, since the result, written afterwards, makes its folder again.
  const opened = fstatSync(fd);
  const removed = (): string | undefined => {
    if (!opened.isFile()) return undefined;
    try {
      const now = statSync(path);
      if (now.ino === opened.ino && now.dev === opened.dev) return undefined;
    } catch {
      // gone
    }
    return `${what} ${path}: the file was deleted or replaced during the run; the records are lost`;
  };
  let closed: Promise<string | undefined> | undefined;
  return {
    write(line) {
      if (failed === undefined && !stream.destroyed) stream.write(`${line}\n`);
    },
    close: () =>
      (closed ??= new Promise((resolve) => {
        if (stream.destroyed) return resolve(failed);
        stream.once('error', () => resolve(failed));
        stream.end(() => resolve(failed ?? removed()));
      })),
  };
}
