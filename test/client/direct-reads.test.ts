import { once } from 'node:events';
import { connect, createServer, type Server, type Socket, type TcpNetConnectOpts } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as connectTls, createServer as createTlsServer, type ConnectionOptions } from 'node:tls';
import { deliverReadsDirectly, MAX_ASIDE_BYTES, readIntoRegions, type ReadClock } from '../../src/client/direct-reads.js';
import { selfSignedCert } from '../fixtures/self-signed.js';

/**
 * A real loopback socket read the way undici reads one (on 'readable', read() until null), with
 * the server writing chunks one at a time and waiting until the client has them before the next.
 */
let server: Server;
let serverSide: Promise<Socket>;
let port = 0;
beforeEach(async () => {
  server = createServer();
  serverSide = once(server, 'connection').then(([s]) => s as Socket);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as { port: number }).port;
});
afterEach(() => server.close());

interface Reader {
  socket: Socket;
  chunks: string[];
  /** The chunks themselves, as read() returned them. */
  kept: Buffer[];
  /** Node's own buffer when each 'readable' came: 0 when the chunk bypassed it. */
  buffered: number[];
  ended: Promise<unknown>;
}

/** Makes the socket's reads direct (or not) and reads it as undici does while `reading()` says so. */
function attach(socket: Socket, direct: boolean, reading = () => true, clock?: ReadClock): Reader {
  if (direct) deliverReadsDirectly(socket, clock);
  const r: Reader = { socket, chunks: [], kept: [], buffered: [], ended: once(socket, 'end') };
  socket.on('readable', () => {
    r.buffered.push(socket.readableLength);
    if (!reading()) return;
    for (let c = socket.read() as Buffer | null; c !== null; c = socket.read() as Buffer | null) {
      r.chunks.push(c.toString());
      r.kept.push(c);
    }
  });
  return r;
}

async function reader(direct: boolean, reading = () => true, regions = false): Promise<Reader> {
  const socket = connect({ port, host: '127.0.0.1', ...(regions ? { onread: readIntoRegions } : {}) });
  await once(socket, 'connect');
  return attach(socket, direct, reading);
}

/** Polls every 2 ms, for at most 400 ms, until `done()`. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await sleep(2);
}

/** Writes each piece and waits until the reader holds it (or, when it is not reading, 10 ms). */
async function writeEach(peer: Socket, r: Reader, pieces: string[], wait = true): Promise<void> {
  for (const piece of pieces) {
    peer.write(piece);
    const want = r.chunks.join('').length + piece.length;
    if (wait) await until(() => r.chunks.join('').length >= want);
    else await sleep(10);
  }
}

test("each read reaches the reader in order, never through Node's buffer; the end still ends it", async () => {
  const r = await reader(true);
  const peer = await serverSide;
  await writeEach(peer, r, ['alpha', 'beta', 'gamma']);
  peer.end();
  await r.ended;
  expect(r.chunks).toEqual(['alpha', 'beta', 'gamma']);
  expect(r.buffered.slice(0, 3)).toEqual([0, 0, 0]);
});

test("without it, the same reads wait in Node's buffer for the reader (what the bypass saves)", async () => {
  const r = await reader(false);
  const peer = await serverSide;
  await writeEach(peer, r, ['alpha', 'beta']);
  peer.end();
  await r.ended;
  expect(r.chunks.join('')).toBe('alphabeta');
  expect(r.buffered.slice(0, 2).every((n) => n > 0)).toBe(true);
});

test('a reader that stops reading loses nothing: chunks wait, in order, and the end comes after them', async () => {
  let reading = false;
  const r = await reader(true, () => reading);
  const peer = await serverSide;
  await writeEach(peer, r, ['one', 'two', 'three'], false);
  peer.end();
  // The end arrives while three chunks are still queued: they go ahead of it into Node's buffer.
  await until(() => r.socket.readableLength >= 'onetwothree'.length);
  expect(r.chunks).toEqual([]);
  expect(r.socket.readableLength).toBe('onetwothree'.length);
  reading = true;
  for (let c = r.socket.read() as Buffer | null; c !== null; c = r.socket.read() as Buffer | null) r.chunks.push(c.toString());
  await r.ended;
  expect(r.chunks.join('')).toBe('onetwothree');
});

test('read(0) takes no chunk', async () => {
  let reading = false;
  const r = await reader(true, () => reading);
  const peer = await serverSide;
  await writeEach(peer, r, ['kept'], false);
  expect(r.socket.read(0)).toBeNull();
  reading = true;
  expect((r.socket.read() as Buffer).toString()).toBe('kept');
  r.socket.destroy();
  peer.destroy();
});

/**
 * A TLS server on loopback and a direct reader of a client socket connected to it (with `onread`
 * when given: tls.connect takes it as net.connect does, and undici passes its connector's options
 * to both; @types/node lists it for net only), once the handshake is done.
 */
async function tlsReader(onread?: TcpNetConnectOpts['onread']): Promise<{ r: Reader; peer: Socket; close: () => void }> {
  const { key, cert } = selfSignedCert();
  const tlsServer = createTlsServer({ key, cert });
  const peerP = once(tlsServer, 'secureConnection').then(([s]) => s as Socket);
  tlsServer.listen(0, '127.0.0.1');
  await once(tlsServer, 'listening');
  const options: ConnectionOptions & Pick<TcpNetConnectOpts, 'onread'> = {
    host: '127.0.0.1',
    port: (tlsServer.address() as { port: number }).port,
    ca: cert,
    ...(onread ? { onread } : {}),
  };
  const socket = connectTls(options);
  await once(socket, 'secureConnect');
  const r = attach(socket, true);
  const peer = await peerP;
  return {
    r,
    peer,
    close: () => {
      socket.destroy();
      tlsServer.close();
    },
  };
}

test('a TLS socket is read the same way: its decrypted reads reach the reader, and it ends', async () => {
  const { r, peer, close } = await tlsReader();
  await writeEach(peer, r, ['secret', 'stream']);
  peer.end();
  await r.ended;
  expect(r.chunks).toEqual(['secret', 'stream']);
  expect(r.buffered.slice(0, 2)).toEqual([0, 0]);
  close();
});

/** `count` distinct pieces of `size` bytes: the piece's number, then filler. */
function pieces(count: number, size: number, tag = ''): string[] {
  return Array.from({ length: count }, (_, i) => `${tag}${i}:`.padEnd(size, String.fromCharCode(97 + (i % 26))));
}

/** Writes each piece, one read at a time, and ends: the reader kept each one intact, read by read. */
async function deliverAll(peer: Socket, r: Reader, sent: string[]): Promise<void> {
  await writeEach(peer, r, sent);
  peer.end();
  await r.ended;
  expect(r.kept.map((c) => c.toString())).toEqual(sent);
}

describe('reads into regions (onread)', () => {
  test('each read is a view of its region that no later read writes over; small reads share a region, a full one is replaced', async () => {
    const r = await reader(true, () => true, true);
    const peer = await serverSide;
    // 40 reads of 200 bytes: a 1 KiB region takes 4 of them (then 224 bytes are left, under 256).
    const sent = pieces(40, 200);
    await deliverAll(peer, r, sent);
    const regions = new Set(r.kept.map((c) => c.buffer));
    expect(regions.size).toBe(10);
    for (const region of regions) expect(region.byteLength).toBe(1024);
    expect(r.buffered.slice(0, 40).every((n) => n === 0)).toBe(true);
  });

  test('a write larger than a region arrives whole: a read that fills its region is followed by a 64 KiB one', async () => {
    const r = await reader(true, () => true, true);
    const peer = await serverSide;
    const big = pieces(1, 200_000)[0];
    peer.end(big);
    await r.ended;
    expect(r.chunks.join('')).toBe(big);
    expect(r.kept[0].length).toBe(1024);
    expect(r.kept[1].buffer.byteLength).toBe(64 * 1024);
    expect(Math.max(...r.kept.map((c) => c.length))).toBeLessThanOrEqual(64 * 1024);
  });

  test("a socket made while another's read is handled gets the rest of that region, and neither writes over the other", async () => {
    // A flowing socket's 'data' comes from inside its read, so a listener that opens a connection
    // there has Node make the new socket's handle, and ask for its buffer, in the middle of the
    // read (a direct socket's chunks go on after the poll phase, outside any read).
    const socket = connect({ port, host: '127.0.0.1', onread: readIntoRegions });
    await once(socket, 'connect');
    const first: Reader = { socket, chunks: [], kept: [], buffered: [], ended: once(socket, 'end') };
    const firstPeer = await serverSide;
    const secondPeerP = once(server, 'connection').then(([s]) => s as Socket);
    let second: Reader | undefined;
    let secondConnected: Promise<unknown> | undefined;
    socket.on('data', (c: Buffer) => {
      first.chunks.push(c.toString());
      first.kept.push(c);
      if (second) return;
      second = attach(connect({ port, host: '127.0.0.1', onread: readIntoRegions }), true);
      secondConnected = once(second.socket, 'connect');
    });
    await writeEach(firstPeer, first, ['opening']);
    await until(() => second !== undefined);
    const secondReader = second as unknown as Reader;
    await secondConnected;
    const secondPeer = await secondPeerP;
    const a = pieces(10, 150, 'A');
    const b = pieces(10, 150, 'B');
    for (let i = 0; i < a.length; i++) {
      await writeEach(firstPeer, first, [a[i]]);
      await writeEach(secondPeer, secondReader, [b[i]]);
    }
    firstPeer.end();
    secondPeer.end();
    await Promise.all([first.ended, secondReader.ended]);
    expect(first.kept.map((c) => c.toString())).toEqual(['opening', ...a]);
    expect(secondReader.kept.map((c) => c.toString())).toEqual(b);
    // The handoff happened: the new socket read into the first read's region, the first socket moved on.
    expect(secondReader.kept[0].buffer).toBe(first.kept[0].buffer);
    expect(first.kept[1].buffer).not.toBe(first.kept[0].buffer);
  });

  test('a TLS socket reads its decrypted bytes into regions too', async () => {
    const { r, peer, close } = await tlsReader(readIntoRegions);
    await deliverAll(peer, r, pieces(5, 100));
    expect(new Set(r.kept.map((c) => c.buffer)).size).toBe(1);
    close();
  });
});

describe('reads go on after the poll phase that read them', () => {
  /** What a clock was told, in order, with `performance.now()` where it was told. */
  function recordingClock(log: string[], times: Map<string, number>): ReadClock {
    return {
      read(socket) {
        const name = (socket as Socket & { tag?: string }).tag ?? '?';
        const t = performance.now();
        log.push(`read ${name}`);
        times.set(`read ${name}`, t);
        return t;
      },
      // Each read's own: the number of reads so far, which a later read has moved on by the time it is handed on.
      readSince() {
        return log.length;
      },
      handOn(socket, at, since) {
        const name = (socket as Socket & { tag?: string }).tag ?? '?';
        expect(at).toBe(times.get(`read ${name}`));
        expect(since).toBe(log.indexOf(`read ${name}`) + 1);
        log.push(`handOn ${name}`);
      },
      handedOn() {
        log.push('handedOn');
      },
    };
  }

  /** Direct sockets into regions on `clock`, one per tag, each tagged and, given `handle`, handling its reads with it first; and their server-side peers. */
  async function directSockets(tags: string[], clock: ReadClock, handle?: (tag: string) => void) {
    const readers: Reader[] = [];
    const peers: Socket[] = [];
    for (const tag of tags) {
      const peerP = once(server, 'connection').then(([s]) => s as Socket);
      const socket = connect({ port, host: '127.0.0.1', onread: readIntoRegions });
      await once(socket, 'connect');
      (socket as Socket & { tag?: string }).tag = tag;
      peers.push(await peerP);
      const r = attach(socket, true, () => true, clock);
      if (handle) socket.prependListener('readable', () => handle(tag));
      readers.push(r);
    }
    return { readers, peers };
  }

  /** Holds this thread for `ms`, by its own clock. */
  function hold(ms: number): void {
    const until = performance.now() + ms;
    while (performance.now() < until);
  }

  test("every read of a poll phase is stamped before any is handled, so one read's handling does not delay the next one's stamp", async () => {
    const log: string[] = [];
    const times = new Map<string, number>();
    const clock = recordingClock(log, times);
    const { readers, peers } = await directSockets(['a', 'b'], clock, (tag) => {
      if (!times.has('handling')) times.set('handling', performance.now());
      log.push(`handling ${tag}`);
      hold(10);
    });
    peers[0].write('one');
    peers[1].write('two');
    // Both bytes are in their sockets before this thread polls again.
    hold(5);
    await until(() => readers.every((r) => r.chunks.length > 0));
    expect(readers.map((r) => r.chunks)).toEqual([['one'], ['two']]);
    // The poll finds both sockets, in either order: both are read, then each is handed on and
    // handled in the order read, then the clock hears the phase is done.
    const read = log.slice(0, 2);
    expect([...read].sort()).toEqual(['read a', 'read b']);
    const [first, second] = read.map((e) => e.slice('read '.length));
    expect(log.slice(2)).toEqual([`handOn ${first}`, `handling ${first}`, `handOn ${second}`, `handling ${second}`, 'handedOn']);
    expect(times.get(`read ${second}`)).toBeLessThan(times.get('handling') as number);
    for (const s of [...readers.map((r) => r.socket), ...peers]) s.destroy();
  });

  test('a phase that reads more than the limit hands what it set aside on at once, in order, and every stream arrives whole', async () => {
    const log: string[] = [];
    let phase = 0;
    const clock: ReadClock = {
      read: () => {
        if (phase === 0) log.push('read');
        return 0;
      },
      readSince: () => 0,
      handOn: () => {
        if (phase === 0) log.push('handOn');
      },
      handedOn: () => void phase++,
    };
    // Enough sockets that the bytes one write puts in each (at least TCP's first window on
    // loopback) add up to more than the limit.
    const count = 32;
    const each = 256 * 1024;
    const { readers, peers } = await directSockets(
      Array.from({ length: count }, (_, i) => String(i)),
      clock,
    );
    const sent = peers.map((_, i) => pieces(1, each, `${i}:`)[0]);
    peers.forEach((peer, i) => peer.end(sent[i]));
    await Promise.all(readers.map((r) => r.ended));
    expect(readers.map((r) => r.chunks.join(''))).toEqual(sent);
    // In the first phase, reads were handed on before its last read: the limit was reached.
    expect(count * 64 * 1024).toBeGreaterThan(MAX_ASIDE_BYTES);
    expect(log.indexOf('handOn')).toBeGreaterThan(0);
    expect(log.lastIndexOf('read')).toBeGreaterThan(log.indexOf('handOn'));
  });

  test("a read's data and the end of its stream in one poll phase: the data reaches the reader before the end", async () => {
    // A read that fills its 1 KiB region makes Node read again at once, and that read finds the end.
    const r = await reader(true, () => true, true);
    const peer = await serverSide;
    const data = 'x'.repeat(1024);
    let endedWith = '';
    r.socket.on('end', () => (endedWith = r.chunks.join('')));
    peer.end(data);
    await r.ended;
    expect(endedWith).toBe(data);
  });

  test("a read's data and a reset of its connection in one poll phase: the data reaches the reader before the error", async () => {
    const r = await reader(true, () => true, true);
    const peer = await serverSide;
    const data = 'y'.repeat(1024);
    let erroredWith = '';
    r.ended.catch(() => undefined);
    const errored = once(r.socket, 'error');
    r.socket.on('error', () => (erroredWith = r.chunks.join('')));
    peer.write(data, () => peer.resetAndDestroy());
    const [err] = (await errored) as [NodeJS.ErrnoException];
    expect(err.code).toBe('ECONNRESET');
    expect(erroredWith).toBe(data);
  });
});
