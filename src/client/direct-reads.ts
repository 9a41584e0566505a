import type { Socket } from 'node:net';

/**
 * Hands each read of `socket` to its reader at once, as flowing mode hands out 'data', for a
 * reader that consumes in paused mode: on 'readable', read() until it returns null. That is
 * how undici's HTTP/1.1 parser reads its sockets (lib/dispatcher/client-h1.js, readMore).
 *
 * In paused mode each read costs, on top of the socket's own work: the chunk appended to the
 * stream's buffer, a process.nextTick to emit 'readable', the reader's read() taking the chunk
 * back out, and a second read() finding the buffer empty. A paced stream brings one token per
 * read, tens of thousands a second near one core's ceiling, so that machinery is a share of the
 * generator's time, and the nextTick hop delays every read's timestamp a little. Here a chunk
 * goes into a queue of this socket's own and 'readable' is emitted from inside the read itself
 * (Node's stream code calls push() for every chunk it reads, or, for a socket made with
 * `readIntoRegions` below, that callback, which hands it on the same way); read() serves that
 * queue first.
 *
 * Everything else takes Node's own path, so the stream ends and fails as before: the end of
 * the stream (push(null)) first moves whatever is still queued into the stream's buffer, in
 * order, then ends it there, and the reader's read() drains that buffer and so emits 'end'.
 * read(0), which Node uses to poke a stream, never takes a chunk.
 *
 * No backpressure: push() always answers true, so the socket never stops reading, and a reader
 * that stopped calling read() would let the queue grow. undici stops only when a request's
 * handler pauses it, and loadgate's never does (client.ts).
 */
const kDeliver = Symbol('deliver');
type DirectSocket = Socket & { [kDeliver]?: (chunk: Buffer) => void };

export function deliverReadsDirectly(socket: Socket): void {
  const queue: Buffer[] = [];
  const deliver = (chunk: Buffer): void => {
    queue.push(chunk);
    socket.emit('readable');
  };
  (socket as DirectSocket)[kDeliver] = deliver;
  const nodePush = socket.push.bind(socket);
  const nodeRead = socket.read.bind(socket);
  socket.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (!Buffer.isBuffer(chunk)) {
      for (const queued of queue.splice(0)) nodePush(queued);
      return nodePush(chunk, encoding);
    }
    deliver(chunk);
    return true;
  };
  socket.read = (size?: number): unknown => (size !== 0 && queue.length > 0 ? queue.shift() : nodeRead(size));
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

function onRead(this: Socket, nread: number, buf: Uint8Array): boolean {
  const region = buf as Buffer;
  const free = region.length - nread;
  if (free === 0) nextRegionBytes = BURST_BYTES;
  // A burst's region is not kept: the reads after a burst are small again, and would keep its
  // 64 KiB alive for seconds.
  regionRest = free >= MIN_FREE_BYTES && region.buffer.byteLength === REGION_BYTES ? region.subarray(nread) : null;
  const chunk = region.subarray(0, nread);
  const deliver = (this as DirectSocket)[kDeliver];
  if (deliver) deliver(chunk);
  else this.push(chunk);
  return true;
}

export const readIntoRegions = { buffer: nextRegion, callback: onRead };
