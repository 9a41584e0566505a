import type { Socket } from 'node:net';

/**
 * How a socket's reads are timed (client.ts): each read is stamped where it happens, and its
 * stamp is handed back with it when its chunk goes on to the reader.
 */
export interface ReadClock {
  /** At the read itself, in the poll phase: the read's time. */
  read(socket: Socket): number;
  /** Right after `read`: the earliest moment the bytes just read can have arrived. */
  readSince(): number;
  /** Just before the read's chunk goes to the reader, with the times `read` and `readSince` gave it. */
  handOn(socket: Socket, at: number, since: number): void;
  /** Once every read of a poll phase has gone to its reader (in the check phase right after it). */
  handedOn(): void;
}

/**
 * Hands each read of `socket` to its reader, as flowing mode hands out 'data', for a reader that
 * consumes in paused mode: on 'readable', read() until it returns null. That is how undici's
 * HTTP/1.1 parser reads its sockets (lib/dispatcher/client-h1.js, readMore).
 *
 * In paused mode each read costs, on top of the socket's own work: the chunk appended to the
 * stream's buffer, a process.nextTick to emit 'readable', the reader's read() taking the chunk
 * back out, and a second read() finding the buffer empty. A paced stream brings one token per
 * read, tens of thousands a second near one core's ceiling, so that machinery is a share of the
 * generator's time. Here a chunk goes into a queue of this socket's own, 'readable' is emitted
 * for it, and read() serves that queue first.
 *
 * The chunk goes on after the poll phase that read it, not inside the read. The loop reads every
 * socket the poll found readable one after the other, and a read's timestamp is taken when its
 * own turn comes: had each read's chunk been handled (HTTP and SSE parsing, recording) before the
 * next socket was read, the last read of a burst would be stamped late by the handling of every
 * read ahead of it, not only by their reading (docs/benchmarks.md). So each read is only
 * stamped (`clock.read`, `clock.readSince`) and set aside; the first one of a poll phase queues an
 * immediate, which runs in the check phase right after that poll phase and hands every chunk on,
 * in the order read, each with its own stamps (`clock.handOn`), then tells the clock
 * (`clock.handedOn`). Up to a limit of bytes set aside (`MAX_ASIDE_BYTES`, below).
 *
 * Everything else takes Node's own path, so the stream ends and fails as before: the end of
 * the stream (push(null)) first hands on this socket's reads still set aside and moves whatever
 * is still queued into the stream's buffer, in order, then ends it there, and the reader's read()
 * drains that buffer and so emits 'end'. A read that fails (Node destroys the socket with the
 * error of its `read` call) hands on the reads set aside before it first, as they would have
 * been had they gone on at once; any other destroy drops them, as a destroyed socket's reads are.
 * read(0), which Node uses to poke a stream, never takes a chunk.
 *
 * No backpressure: push() always answers true, so the socket never stops reading, and a reader
 * that stopped calling read() would let the queue grow. undici stops only when a request's
 * handler pauses it, and loadgate's never does (client.ts).
 */
const kDeliver = Symbol('deliver');
const kClock = Symbol('clock');
type DirectSocket = Socket & { [kDeliver]?: (chunk: Buffer) => void; [kClock]?: ReadClock };

export function deliverReadsDirectly(socket: Socket, clock?: ReadClock): void {
  const direct = socket as DirectSocket;
  const queue: Buffer[] = [];
  direct[kDeliver] = (chunk: Buffer): void => {
    queue.push(chunk);
    socket.emit('readable');
  };
  if (clock) direct[kClock] = clock;
  const nodePush = socket.push.bind(socket);
  const nodeRead = socket.read.bind(socket);
  const nodeDestroy = socket.destroy.bind(socket);
  socket.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (!Buffer.isBuffer(chunk)) {
      handOnSetAside(direct);
      for (const queued of queue.splice(0)) nodePush(queued);
      return nodePush(chunk, encoding);
    }
    setAside(direct, chunk);
    return true;
  };
  socket.read = (size?: number): unknown => (size !== 0 && queue.length > 0 ? queue.shift() : nodeRead(size));
  socket.destroy = (error?: Error): Socket => {
    if (!handingOn && (error as { syscall?: unknown } | undefined)?.syscall === 'read') handOnSetAside(direct);
    return nodeDestroy(error);
  };
}

/**
 * Reads set aside in this poll phase, in the order read: parallel arrays reused from one phase to
 * the next (no allocation per read), their references cleared once handed on.
 */
const asideSockets: (DirectSocket | null)[] = [];
const asideChunks: (Buffer | null)[] = [];
const asideAt: number[] = [];
const asideSince: number[] = [];
let asideCount = 0;
let asideBytes = 0;
/** The clocks of this phase's reads (one, unless sockets of several clients were read). */
const asideClocks: ReadClock[] = [];
let handingOn = false;
let queued = false;

/**
 * At most this many bytes wait to be handed on. A poll phase of paced streams reads a few hundred
 * bytes a socket, but a server flooding many sockets at once can have each read up to libuv's
 * limit in one phase (32 reads of up to 64 KiB), and holding all of it until the check phase would
 * hold that much memory: past the limit, everything set aside is handed on at once, inside the
 * read, in the order read, as were it not set aside.
 */
export const MAX_ASIDE_BYTES = 1024 * 1024;

function setAside(socket: DirectSocket, chunk: Buffer): void {
  if (!queued) {
    queued = true;
    setImmediate(handOnAll);
  }
  const clock = socket[kClock];
  asideSockets[asideCount] = socket;
  asideChunks[asideCount] = chunk;
  asideAt[asideCount] = clock ? clock.read(socket) : 0;
  asideSince[asideCount] = clock ? clock.readSince() : 0;
  asideCount++;
  asideBytes += chunk.length;
  if (clock && asideClocks[asideClocks.length - 1] !== clock && !asideClocks.includes(clock)) asideClocks.push(clock);
  if (asideBytes >= MAX_ASIDE_BYTES && !handingOn) handOnSetAsideNow();
}

/** Every read set aside, handed on now, in order; the phase's turn still ends in the check phase. */
function handOnSetAsideNow(): void {
  handingOn = true;
  try {
    for (let i = 0; i < asideCount; i++) handOn(i);
  } finally {
    handingOn = false;
    asideCount = 0;
    asideBytes = 0;
  }
}

function handOn(i: number): void {
  const socket = asideSockets[i];
  const chunk = asideChunks[i];
  asideSockets[i] = null;
  asideChunks[i] = null;
  if (socket === null || chunk === null || socket.destroyed) return;
  socket[kClock]?.handOn(socket, asideAt[i], asideSince[i]);
  socket[kDeliver]?.(chunk);
}

function handOnAll(): void {
  queued = false;
  try {
    handOnSetAsideNow();
  } finally {
    const clocks = asideClocks.splice(0);
    for (const clock of clocks) clock.handedOn();
  }
}

/** This socket's reads still set aside, handed on now (its stream is ending or failing). */
function handOnSetAside(socket: DirectSocket): void {
  for (let i = 0; i < asideCount; i++) if (asideSockets[i] === socket) handOn(i);
}

/**
 * `onread` for net.connect (and tls.connect): each socket reads into a small region of its own
 * (1 KiB), and each read is handed on as a view of the bytes it wrote there, never written over:
 * the next read goes into the rest of the region, and a region with less than 256 bytes left is
 * replaced by a fresh one. A read that fills its region found more waiting, so the next read
 * gets 64 KiB (Node's own read size), once.
 *
 * Without it Node gives every read an ArrayBuffer of its own, and a paced stream brings one
 * token per read, tens of thousands a second near one core's ceiling. Each one dies young, but
 * the young generation's collection visits every ArrayBuffer it had, to free its memory: at
 * 900 paced req/s that sweep was about 40 % of each collection's pause (docs/benchmarks.md). A
 * region serves a few token reads (an SSE event is 100–300 bytes) with one ArrayBuffer.
 *
 * Why small: a region lives from its first read to its last, and one that outlives two young
 * collections moves to the old generation, where only a full collection frees its memory. At
 * 900 paced req/s, regions of 2 or 4 KiB (9 to 18 token reads, 90 to 180 ms of a stream) lived
 * that long, and the memory they held brought a second full collection, of 9–13 ms, into an
 * 8 s run; 1 KiB regions did not (docs/benchmarks.md).
 *
 * A view is safe to keep: its bytes are never reused, so undici may hold header bytes across
 * reads, and a slow reader's queue (deliverReadsDirectly) holds its chunks intact.
 *
 * Node calls `buffer` right after `callback`, with no socket, for the socket just read (and once
 * when a socket is made); `callback` leaves the rest of its region there for it. Should that call
 * go to another socket (one made while the read was being handled), each still gets a region no
 * other socket has: the rest goes to the new socket, and the one just read gets a fresh region.
 */
const REGION_BYTES = 1024;
const MIN_FREE_BYTES = 256;
const BURST_BYTES = 64 * 1024;
let regionRest: Buffer | null = null;
let nextRegionBytes = REGION_BYTES;

function nextRegion(): Buffer {
  const region = regionRest ?? Buffer.allocUnsafeSlow(nextRegionBytes);
  regionRest = null;
  nextRegionBytes = REGION_BYTES;
  return region;
}

function onRead(this: DirectSocket, nread: number, buf: Uint8Array): boolean {
  const region = buf as Buffer;
  const free = region.length - nread;
  if (free === 0) nextRegionBytes = BURST_BYTES;
  // A burst's region is not kept: the reads after a burst are small again, and would keep its
  // 64 KiB alive for seconds.
  regionRest = free >= MIN_FREE_BYTES && region.buffer.byteLength === REGION_BYTES ? region.subarray(nread) : null;
  const chunk = region.subarray(0, nread);
  if (this[kDeliver]) setAside(this, chunk);
  else this.push(chunk);
  return true;
}

export const readIntoRegions = { buffer: nextRegion, callback: onRead };
