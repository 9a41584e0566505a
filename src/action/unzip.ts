import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';

/*
 * The zip files GitHub serves for workflow artifacts (zipped on the runner by upload-artifact:
 * stored or deflated entries, data descriptors, zip64 fields on big files), read with yauzl,
 * which bounds-checks every offset against the buffer, refuses absolute and `..` names, and
 * stops inflating an entry at its declared size. An artifact is untrusted input, so on top of
 * that each entry is capped in size before it is inflated and its CRC-32 is verified (yauzl
 * checks lengths, not checksums). Every failure is one line.
 */

export class ZipError extends Error {}

export interface ZipEntry {
  name: string;
  /** Uncompressed size in bytes, as the central directory declares it. */
  size: number;
  /** Inflates (or copies) the entry and checks its length and CRC-32. */
  read(): Promise<Buffer>;
}

/** A baseline is a few hundred kB; anything far larger is not what we are looking for. */
export const DEFAULT_MAX_ENTRY_BYTES = 256 * 1024 * 1024;

/** The file entries of a zip archive (directories left out), read from its central directory. */
export async function readZip(zip: Buffer, maxEntryBytes = DEFAULT_MAX_ENTRY_BYTES): Promise<ZipEntry[]> {
  const file = await yauzl
    .fromBufferPromise(zip, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false })
    .catch((err: unknown) => {
      throw corrupt(err);
    });
  const entries: ZipEntry[] = [];
  await new Promise<void>((resolve, reject) => {
    file.on('error', (err: unknown) => reject(corrupt(err)));
    file.on('end', () => resolve());
    file.on('entry', (entry: yauzl.Entry) => {
      const problem = refusal(entry, maxEntryBytes);
      if (problem) return reject(new ZipError(problem));
      if (!entry.fileName.endsWith('/')) entries.push(zipEntry(file, entry));
      file.readEntry();
    });
    file.readEntry();
  });
  return entries;
}

/** Why an entry is refused before anything is inflated, or null. */
function refusal(entry: yauzl.Entry, maxEntryBytes: number): string | null {
  const name = entry.fileName;
  if (name.endsWith('/')) return null;
  if (entry.isEncrypted()) return `zip entry ${name} is encrypted`;
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)
    return `zip entry ${name} uses compression method ${entry.compressionMethod}; expected stored (0) or deflate (8)`;
  if (entry.uncompressedSize > maxEntryBytes)
    return `zip entry ${name} is ${entry.uncompressedSize} bytes; expected at most ${maxEntryBytes}`;
  return null;
}

function zipEntry(file: yauzl.ZipFile, entry: yauzl.Entry): ZipEntry {
  const name = entry.fileName;
  return {
    name,
    size: entry.uncompressedSize,
    async read() {
      const chunks: Buffer[] = [];
      try {
        const stream = await file.openReadStreamPromise(entry);
        for await (const chunk of stream) chunks.push(chunk as Buffer);
      } catch (err) {
        throw new ZipError(`zip entry ${name} cannot be inflated (${firstLine(err)})`, { cause: err });
      }
      const out = Buffer.concat(chunks);
      if (out.length !== entry.uncompressedSize || crc32(out) !== entry.crc32)
        throw new ZipError(`zip entry ${name} is corrupt (size or CRC-32 mismatch)`);
      return out;
    },
  };
}

/** yauzl's own complaint, as one line of ours. */
function corrupt(err: unknown): ZipError {
  const message = firstLine(err);
  if (/^End of central directory record signature not found/.test(message))
    return new ZipError('not a zip file (no end of central directory record)', { cause: err });
  return new ZipError(`the zip file is truncated or corrupt (${message})`, { cause: err });
}

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0];
