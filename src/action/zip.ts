import { crc32, inflateRawSync } from 'node:zlib';

/*
 * A minimal reader for the zip files GitHub serves for workflow artifacts (zipped on the runner
 * by upload-artifact: stored or deflated entries, data descriptors, zip64 fields on big files).
 * Written here rather than taken as a dependency: no zip library is installed, the format
 * subset is small, and node:zlib does the inflating. An artifact is untrusted input, so every
 * offset is bounds-checked, inflation is capped at the declared size, and each CRC is verified.
 */

export class ZipError extends Error {}

export interface ZipEntry {
  name: string;
  /** Uncompressed size in bytes, as the central directory declares it. */
  size: number;
  /** Inflates (or copies) the entry and checks its length and CRC-32. */
  read(): Buffer;
}

const SIG = { eocd: 0x06054b50, zip64Locator: 0x07064b50, zip64Eocd: 0x06064b50, central: 0x02014b50, local: 0x04034b50 };
const U32_MAX = 0xffffffff;
/** A baseline is a few hundred kB; anything far larger is not what we are looking for. */
const DEFAULT_MAX_ENTRY_BYTES = 256 * 1024 * 1024;

/** The file entries of a zip archive (directories left out), read from its central directory. */
export function readZip(zip: Buffer, maxEntryBytes = DEFAULT_MAX_ENTRY_BYTES): ZipEntry[] {
  const at = (offset: number, length: number) => {
    if (offset < 0 || offset + length > zip.length) throw new ZipError('the zip file is truncated or corrupt');
    return zip.subarray(offset, offset + length);
  };
  const directory = centralDirectory(zip, at);
  let offset = directory.offset;
  const entries: ZipEntry[] = [];
  for (let i = 0; i < directory.count; i++) {
    const h = at(offset, 46);
    if (h.readUInt32LE(0) !== SIG.central) throw new ZipError('the zip central directory is corrupt');
    const flags = h.readUInt16LE(8);
    const method = h.readUInt16LE(10);
    const crc = h.readUInt32LE(16);
    let compressed = h.readUInt32LE(20);
    let size = h.readUInt32LE(24);
    const nameLength = h.readUInt16LE(28);
    const extraLength = h.readUInt16LE(30);
    const commentLength = h.readUInt16LE(32);
    let localOffset = h.readUInt32LE(42);
    // Bit 11: the name is UTF-8; otherwise CP437, which agrees with latin1 on the ASCII names artifacts use.
    const name = at(offset + 46, nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
    // Zip64 extra field: the 64-bit values, in this order, of whichever fields hold 0xFFFFFFFF.
    const extra = at(offset + 46 + nameLength, extraLength);
    for (let p = 0; p + 4 <= extra.length; p += 4 + extra.readUInt16LE(p + 2)) {
      if (extra.readUInt16LE(p) !== 0x0001) continue;
      let q = p + 4;
      const next = () => Number(extra.readBigUInt64LE((q += 8) - 8));
      if (size === U32_MAX) size = next();
      if (compressed === U32_MAX) compressed = next();
      if (localOffset === U32_MAX) localOffset = next();
    }
    offset += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    if (flags & 0x1) throw new ZipError(`zip entry ${name} is encrypted`);
    if (method !== 0 && method !== 8)
      throw new ZipError(`zip entry ${name} uses compression method ${method}; expected stored (0) or deflate (8)`);
    if (size > maxEntryBytes) throw new ZipError(`zip entry ${name} is ${size} bytes; expected at most ${maxEntryBytes}`);
    entries.push({
      name,
      size,
      read() {
        // The local header's own name and extra lengths may differ from the central directory's.
        const local = at(localOffset, 30);
        if (local.readUInt32LE(0) !== SIG.local) throw new ZipError(`zip entry ${name} has no local header`);
        const data = at(localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28), compressed);
        let out: Buffer;
        try {
          out = method === 0 ? Buffer.from(data) : inflateRawSync(data, { maxOutputLength: Math.max(1, size) });
        } catch (err) {
          throw new ZipError(`zip entry ${name} cannot be inflated (${(err as Error).message})`);
        }
        if (out.length !== size || crc32(out) !== crc) throw new ZipError(`zip entry ${name} is corrupt (size or CRC-32 mismatch)`);
        return out;
      },
    });
  }
  return entries;
}

/** Finds the end-of-central-directory record (and its zip64 twin when the counts overflow). */
function centralDirectory(zip: Buffer, at: (offset: number, length: number) => Buffer): { count: number; offset: number } {
  // The record is 22 bytes plus a comment of up to 65,535 bytes, so it starts within that distance of the end.
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let p = zip.length - 22; p >= lowest; p--) {
    if (zip.readUInt32LE(p) !== SIG.eocd) continue;
    const count = zip.readUInt16LE(p + 10);
    const offset = zip.readUInt32LE(p + 16);
    if (count !== 0xffff && offset !== U32_MAX) return { count, offset };
    const locator = at(p - 20, 20);
    if (locator.readUInt32LE(0) !== SIG.zip64Locator) throw new ZipError('the zip64 end of central directory is missing');
    const z = at(Number(locator.readBigUInt64LE(8)), 56);
    if (z.readUInt32LE(0) !== SIG.zip64Eocd) throw new ZipError('the zip64 end of central directory is corrupt');
    return { count: Number(z.readBigUInt64LE(32)), offset: Number(z.readBigUInt64LE(48)) };
  }
  throw new ZipError('not a zip file (no end of central directory record)');
}
