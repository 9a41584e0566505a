/**
 * Incremental Server-Sent Events framer over raw bytes (WHATWG HTML §9.2.6, minus what a
 * load tester does not need). Lines are found with native `indexOf` on the chunk, and an
 * event's data goes out as bytes, never decoded. The usual event, one data line that arrived
 * whole in one read, goes out as a view of that read's bytes, copied nowhere. Anything else is
 * assembled per stream in one buffer that carries a line split across reads and one that
 * collects the event's data; both grow once and are reused, so an event costs no allocation.
 * CRLF pairs split across reads come out whole.
 *
 * Both buffers are bounded: a line or an event's data longer than `maxBytes` stops the framer
 * (`onOversize`), so a server that never writes a newline cannot grow the generator's memory.
 */
import { DEFAULT_MAX_EVENT_BYTES } from './bounds.js';

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const DATA = Buffer.from('data');
const EVENT = Buffer.from('event');
const ERROR = Buffer.from('error');
const EMPTY = Buffer.alloc(0);
const NEWLINE = Buffer.from('\n');

export interface SseSink {
  /**
   * One dispatched event: its data lines joined with `\n`, as UTF-8 bytes data[start, end), valid
   * only during the call; `isError` when its type was `error`.
   */
  onEvent(data: Buffer, start: number, end: number, isError: boolean): void;
  /** A line or an event's data passed `maxBytes`; nothing more is framed. */
  onOversize(maxBytes: number): void;
}

export class SseFramer {
  /** Bytes of a line whose end has not arrived yet. */
  private carry: Buffer = EMPTY;
  private carryLen = 0;
  /** The previous chunk ended in CR, so an LF starting the next chunk belongs to it. */
  private skipLF = false;
  private firstLine = true;
  /** The event's data so far: data[0, dataLen), present once a data line was seen. */
  private data: Buffer = EMPTY;
  private dataLen = 0;
  /**
   * Or, while the event's only data line lies in the chunk being pushed: that line's value,
   * view[viewStart, viewEnd), not copied. Copied into `data` once a second data line comes or
   * the chunk ends before the event does (the chunk is not ours to keep).
   */
  private view: Buffer | null = null;
  private viewStart = 0;
  private viewEnd = 0;
  private hasData = false;
  private isError = false;
  private oversize = false;

  constructor(
    private readonly sink: SseSink,
    private readonly maxBytes = DEFAULT_MAX_EVENT_BYTES,
  ) {}

  push(chunk: Uint8Array): void {
    if (this.oversize) return;
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const len = buf.length;
    let pos = 0;
    if (this.skipLF && len > 0) {
      this.skipLF = false;
      if (buf[0] === LF) pos = 1;
    }
    // Next LF/CR at or after pos; -2 means "search again", -1 means "none left in this chunk".
    let nextLF = -2;
    let nextCR = -2;
    while (pos < len && !this.oversize) {
      if (nextLF !== -1 && nextLF < pos) nextLF = buf.indexOf(LF, pos);
      if (nextCR !== -1 && nextCR < pos) nextCR = buf.indexOf(CR, pos);
      const eol = nextCR === -1 ? nextLF : nextLF === -1 ? nextCR : Math.min(nextLF, nextCR);
      if (eol === -1) {
        this.keep(buf, pos, len);
        break;
      }
      if (this.carryLen > 0) {
        this.keep(buf, pos, eol);
        if (this.oversize) return;
        const n = this.carryLen;
        this.carryLen = 0;
        this.line(this.carry, 0, n);
        // The carry is rewritten by the next line split across reads: its data is copied now.
        this.settleView();
      } else {
        this.line(buf, pos, eol);
      }
      pos = eol + 1;
      if (buf[eol] === CR) {
        if (pos < len) {
          if (buf[pos] === LF) pos++;
        } else {
          this.skipLF = true;
        }
      }
    }
    this.settleView();
  }

  /**
   * End of stream. The spec discards an unterminated last event; we dispatch it instead, so a
   * server that omits the final blank line is not miscounted. This cannot fake success: a
   * truncated payload still fails to parse, and `[DONE]` cannot be produced by truncation.
   */
  end(): void {
    if (this.oversize) return;
    if (this.carryLen > 0) {
      const n = this.carryLen;
      this.carryLen = 0;
      this.line(this.carry, 0, n);
    }
    this.dispatch();
  }

  /** Appends buf[s, e) to the carry buffer. */
  private keep(buf: Buffer, s: number, e: number): void {
    if (this.tooLong(this.carryLen + (e - s))) return;
    this.carry = append(this.carry, this.carryLen, buf, s, e);
    this.carryLen += e - s;
  }

  /** Interprets one line, buf[s, e) without its terminator. */
  private line(buf: Buffer, s: number, e: number): void {
    if (this.firstLine) {
      this.firstLine = false;
      // A UTF-8 byte order mark may precede the first line.
      if (e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) s += 3;
    }
    if (s === e) {
      this.dispatch();
      return;
    }
    const first = buf[s];
    if (first === COLON) return; // comment, e.g. `: ping` keep-alives
    if (first === DATA[0] && isField(buf, s, e, DATA)) {
      const v = valueStart(buf, s + DATA.length, e);
      if (!this.hasData) {
        if (this.tooLong(e - v)) return;
        this.view = buf;
        this.viewStart = v;
        this.viewEnd = e;
        this.hasData = true;
        return;
      }
      this.settleView();
      this.data = append(this.data, this.dataLen, NEWLINE, 0, 1);
      this.dataLen++;
      if (this.tooLong(this.dataLen + (e - v))) return;
      this.data = append(this.data, this.dataLen, buf, v, e);
      this.dataLen += e - v;
    } else if (first === EVENT[0] && isField(buf, s, e, EVENT)) {
      const v = valueStart(buf, s + EVENT.length, e);
      this.isError = e - v === ERROR.length && buf.compare(ERROR, 0, ERROR.length, v, e) === 0;
    }
    // id, retry and unknown fields carry nothing a load test needs.
  }

  /** Copies a pending view's bytes into `data`. */
  private settleView(): void {
    if (this.view === null) return;
    this.data = append(this.data, 0, this.view, this.viewStart, this.viewEnd);
    this.dataLen = this.viewEnd - this.viewStart;
    this.view = null;
  }

  /** True, once and for all, when `n` bytes would pass the bound: the buffers are let go and the sink told. */
  private tooLong(n: number): boolean {
    if (n <= this.maxBytes) return false;
    this.oversize = true;
    this.view = null;
    this.carry = this.data = EMPTY;
    this.carryLen = this.dataLen = 0;
    this.sink.onOversize(this.maxBytes);
    return true;
  }

  private dispatch(): void {
    // An `event: error` is reported even without data, so a failure cannot pass silently.
    if (!this.hasData && !this.isError) return;
    const isError = this.isError;
    const view = this.view;
    const n = this.dataLen;
    this.view = null;
    this.dataLen = 0;
    this.hasData = false;
    this.isError = false;
    if (view !== null) this.sink.onEvent(view, this.viewStart, this.viewEnd, isError);
    else this.sink.onEvent(this.data, 0, n, isError);
  }
}

/** Copies src[s, e) to dst at `at`, into a buffer twice as large when it does not fit; returns the buffer written. */
function append(dst: Buffer, at: number, src: Buffer, s: number, e: number): Buffer {
  const need = at + (e - s);
  if (need > dst.length) {
    const grown = Buffer.allocUnsafe(Math.max(need, dst.length * 2, 256));
    dst.copy(grown, 0, 0, at);
    dst = grown;
  }
  // Byte by byte: Buffer#copy makes a Uint8Array view per call, garbage on every event.
  for (let k = s; k < e; k++) dst[at++] = src[k]!;
  return dst;
}

/** True when the line's field name (the bytes before the first colon, or the whole line) is `name`. */
function isField(buf: Buffer, s: number, e: number, name: Buffer): boolean {
  const n = name.length;
  if (e - s < n || (e - s > n && buf[s + n] !== COLON)) return false;
  return buf.compare(name, 0, n, s, s + n) === 0;
}

/** Where the value starts, given the index just past the field name: after the colon and one optional space. */
function valueStart(buf: Buffer, afterName: number, e: number): number {
  if (afterName === e) return e;
  const v = afterName + 1;
  return v < e && buf[v] === SPACE ? v + 1 : v;
}
