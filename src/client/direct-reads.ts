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
 * (Node's stream code calls push() for every chunk it reads); read() serves that queue first.
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
export function deliverReadsDirectly(socket: Socket): void {
  const queue: Buffer[] = [];
  const nodePush = socket.push.bind(socket);
  const nodeRead = socket.read.bind(socket);
  socket.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (!Buffer.isBuffer(chunk)) {
      for (const queued of queue.splice(0)) nodePush(queued);
      return nodePush(chunk, encoding);
    }
    queue.push(chunk);
    socket.emit('readable');
    return true;
  };
  socket.read = (size?: number): unknown => (size !== 0 && queue.length > 0 ? queue.shift() : nodeRead(size));
}
