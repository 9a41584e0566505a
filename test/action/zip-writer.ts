import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipInput {
  name: string;
  data: Buffer | string;
  /** deflate (default) or store. */
  method?: 'deflate' | 'store';
  /** Sizes and CRC in a data descriptor after the data, zeros in the local header (streaming writers such as upload-artifact's). */
  descriptor?: boolean;
  /** Sizes and offset as 0xFFFFFFFF in the central directory, the real values in a zip64 extra field. */
  zip64?: boolean;
}

/** Writes a zip archive: the test-side twin of src/action/zip.ts, kept just as small. */
export function writeZip(files: ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const f of files) {
    const data = Buffer.from(f.data);
    const method = f.method === 'store' ? 0 : 8;
    const body = method === 0 ? data : deflateRawSync(data);
    const name = Buffer.from(f.name, 'utf8');
    const crc = crc32(data);
    const flags = 0x800 | (f.descriptor ? 0x8 : 0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    if (!f.descriptor) {
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(body.length, 18);
      local.writeUInt32LE(data.length, 22);
    }
    local.writeUInt16LE(name.length, 26);
    const descriptor = Buffer.alloc(f.descriptor ? 16 : 0);
    if (f.descriptor) {
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(body.length, 8);
      descriptor.writeUInt32LE(data.length, 12);
    }
    const extra = Buffer.alloc(f.zip64 ? 28 : 0);
    if (f.zip64) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(24, 2);
      extra.writeBigUInt64LE(BigInt(data.length), 4);
      extra.writeBigUInt64LE(BigInt(body.length), 12);
      extra.writeBigUInt64LE(BigInt(offset), 20);
    }
    const big = (v: number) => (f.zip64 ? 0xffffffff : v);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(45, 4);
    central.writeUInt16LE(45, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(big(body.length), 20);
    central.writeUInt32LE(big(data.length), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE(big(offset), 42);
    locals.push(local, name, body, descriptor);
    centrals.push(central, name, extra);
    offset += local.length + name.length + body.length + descriptor.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
