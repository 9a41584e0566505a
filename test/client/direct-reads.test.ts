import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect as connectTls, createServer as createTlsServer } from 'node:tls';
import { deliverReadsDirectly } from '../../src/client/direct-reads.js';
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
  /** Node's own buffer when each 'readable' came: 0 when the chunk bypassed it. */
  buffered: number[];
  ended: Promise<unknown>;
}

/** Makes the socket's reads direct (or not) and reads it as undici does while `reading()` says so. */
function attach(socket: Socket, direct: boolean, reading = () => true): Reader {
  if (direct) deliverReadsDirectly(socket);
  const r: Reader = { socket, chunks: [], buffered: [], ended: once(socket, 'end') };
  socket.on('readable', () => {
    r.buffered.push(socket.readableLength);
    if (!reading()) return;
    for (let c = socket.read() as Buffer | null; c !== null; c = socket.read() as Buffer | null) r.chunks.push(c.toString());
  });
  return r;
}

async function reader(direct: boolean, reading = () => true): Promise<Reader> {
  const socket = connect(port, '127.0.0.1');
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

test("each read reaches the reader at once, in order, never through Node's buffer; the end still ends it", async () => {
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

test('a TLS socket is read the same way: its decrypted reads reach the reader at once, and it ends', async () => {
  const { key, cert } = selfSignedCert();
  const tlsServer = createTlsServer({ key, cert });
  const peerP = once(tlsServer, 'secureConnection').then(([s]) => s as Socket);
  tlsServer.listen(0, '127.0.0.1');
  await once(tlsServer, 'listening');
  const socket = connectTls({ host: '127.0.0.1', port: (tlsServer.address() as { port: number }).port, ca: cert });
  await once(socket, 'secureConnect');
  const r = attach(socket, true);
  const peer = await peerP;
  await writeEach(peer, r, ['secret', 'stream']);
  peer.end();
  await r.ended;
  expect(r.chunks).toEqual(['secret', 'stream']);
  expect(r.buffered.slice(0, 2)).toEqual([0, 0]);
  socket.destroy();
  tlsServer.close();
});
