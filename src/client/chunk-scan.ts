/**
 * One pass over a streamed chunk's JSON bytes that validates it and picks out only what the
 * metrics need, allocating nothing: at tens of thousands of events per second, JSON.parse's
 * objects and strings on every event cost time and young-generation collections (measured
 * side by side by scripts/bench-events.mjs).
 *
 * It answers MALFORMED for text JSON.parse rejects, UNUSUAL for valid JSON whose meaning it
 * does not settle itself (escaped key names, a repeated key of interest, an error payload
 * whose message is wanted, odd numbers, deep nesting) — the caller then parses the text —
 * and OK with the findings filled in. test/client/chunk-scan.test.ts checks it against
 * JSON.parse on generated and mutated chunks.
 */

export const OK = 0;
export const MALFORMED = 1;
export const UNUSUAL = 2;
export type ScanStatus = typeof OK | typeof MALFORMED | typeof UNUSUAL;

export interface ChunkFindings {
  /** choices[0].delta is present and not null (a chat chunk: its `text` is not read). */
  hasDelta: boolean;
  /** choices[0].delta.content is a non-empty string. */
  answer: boolean;
  /** choices[0].delta.reasoning_content or .reasoning is a non-empty string. */
  reasoning: boolean;
  /** choices[0].text is a non-empty string. */
  text: boolean;
  /** usage is an object whose completion_tokens is a number. */
  completionTokens: number | null;
  promptTokens: number | null;
}

// Where a value sits, as far as the findings care.
const OTHER = 0;
const ROOT = 1;
const CHOICES = 2;
const CHOICE0 = 3;
const DELTA = 4;
const USAGE = 5;

const MAX_DEPTH = 32;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const name = (s: string) => Buffer.from(s);
const K_ERROR = name('error');
const K_OBJECT = name('object');
const K_CHOICES = name('choices');
const K_USAGE = name('usage');
const K_DELTA = name('delta');
const K_TEXT = name('text');
const K_CONTENT = name('content');
const K_REASONING_CONTENT = name('reasoning_content');
const K_REASONING = name('reasoning');
const K_COMPLETION_TOKENS = name('completion_tokens');
const K_PROMPT_TOKENS = name('prompt_tokens');

// The scan's state: one scan runs at a time on a thread, so module variables serve (no allocation).
let b: Uint8Array = new Uint8Array(0);
let p = 0;
let end = 0;
let status: ScanStatus = OK;
let out: ChunkFindings;
// The last string scanned: b[strStart, strEnd), and whether it held an escape.
let strStart = 0;
let strEnd = 0;
let strEscaped = false;
// The last number scanned, when it was a plain integer; NaN otherwise.
let intValue = NaN;

/** A findings object to hand scanChunk (it resets every field on each call, so one can be reused on the hot path). */
export function newChunkFindings(): ChunkFindings {
  return { hasDelta: false, answer: false, reasoning: false, text: false, completionTokens: null, promptTokens: null };
}

export function scanChunk(bytes: Uint8Array, start: number, stop: number, findings: ChunkFindings): ScanStatus {
  b = bytes;
  p = start;
  end = stop;
  status = OK;
  out = findings;
  findings.hasDelta = findings.answer = findings.reasoning = findings.text = false;
  findings.completionTokens = findings.promptTokens = null;
  skipWs();
  if (p >= end || b[p] !== 0x7b /* { */) {
    // JSON.parse decides between "valid but not an object" and "invalid"; both are malformed chunks.
    return MALFORMED;
  }
  value(ROOT, 0);
  if (status !== OK) return status;
  skipWs();
  return p === end ? OK : MALFORMED;
}

function skipWs(): void {
  const buf = b;
  let i = p;
  while (i < end) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  p = i;
}

function fail(s: ScanStatus): false {
  if (status === OK) status = s;
  return false;
}

/** Scans the value at p in context `ctx`; false once status is not OK. */
function value(ctx: number, depth: number): boolean {
  if (p >= end) return fail(MALFORMED);
  const c = b[p];
  if (c === 0x7b) return object(ctx, depth + 1);
  if (c === 0x5b /* [ */) return array(ctx, depth + 1);
  if (c === QUOTE) return string();
  if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) return number();
  if (c === 0x74) return literal('true');
  if (c === 0x66) return literal('false');
  if (c === 0x6e) return literal('null');
  return fail(MALFORMED);
}

function literal(word: string): boolean {
  if (end - p < word.length) return fail(MALFORMED);
  for (let i = 0; i < word.length; i++) if (b[p + i] !== word.charCodeAt(i)) return fail(MALFORMED);
  p += word.length;
  return true;
}

// The hot loops copy the scan state into locals: module variables cost a context access per byte.
function string(): boolean {
  const buf = b;
  const stop = end;
  let i = p + 1; // past the opening quote
  strStart = i;
  strEscaped = false;
  for (; i < stop; i++) {
    const c = buf[i];
    if (c === QUOTE) {
      strEnd = i;
      p = i + 1;
      return true;
    }
    if (c < 0x20) return fail(MALFORMED);
    if (c === BACKSLASH) {
      strEscaped = true;
      if (++i >= stop) return fail(MALFORMED);
      const e = buf[i];
      if (e === 0x75 /* u */) {
        if (stop - i < 5) return fail(MALFORMED);
        for (let k = 1; k <= 4; k++) if (!isHex(buf[i + k])) return fail(MALFORMED);
        i += 4;
      } else if (e !== QUOTE && e !== BACKSLASH && e !== 0x2f && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 && e !== 0x74) {
        return fail(MALFORMED);
      }
    }
  }
  return fail(MALFORMED);
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** JSON's number grammar; `intValue` is set for a plain integer of up to 15 digits. */
function number(): boolean {
  let negative = false;
  if (b[p] === 0x2d) {
    negative = true;
    p++;
  }
  if (p >= end) return fail(MALFORMED);
  let n = 0;
  let digits = 0;
  if (b[p] === 0x30) {
    p++;
    digits = 1;
  } else {
    while (p < end && b[p] >= 0x30 && b[p] <= 0x39) {
      n = n * 10 + (b[p] - 0x30);
      p++;
      digits++;
    }
    if (digits === 0) return fail(MALFORMED);
  }
  let plain = true;
  if (p < end && b[p] === 0x2e /* . */) {
    plain = false;
    p++;
    if (!digitsFollow()) return fail(MALFORMED);
  }
  if (p < end && (b[p] === 0x65 || b[p] === 0x45) /* e E */) {
    plain = false;
    p++;
    if (p < end && (b[p] === 0x2b || b[p] === 0x2d)) p++;
    if (!digitsFollow()) return fail(MALFORMED);
  }
  intValue = plain && digits <= 15 && !(negative && n === 0) ? (negative ? -n : n) : NaN;
  return true;
}

function digitsFollow(): boolean {
  const start = p;
  while (p < end && b[p] >= 0x30 && b[p] <= 0x39) p++;
  return p > start;
}

function array(ctx: number, depth: number): boolean {
  if (depth > MAX_DEPTH) return fail(UNUSUAL);
  p++;
  skipWs();
  if (p < end && b[p] === 0x5d /* ] */) {
    p++;
    return true;
  }
  for (let i = 0; ; i++) {
    skipWs();
    const isObject = p < end && b[p] === 0x7b;
    if (!value(ctx === CHOICES && i === 0 && isObject ? CHOICE0 : OTHER, depth)) return false;
    skipWs();
    if (p >= end) return fail(MALFORMED);
    const c = b[p++];
    if (c === 0x5d) return true;
    if (c !== 0x2c /* , */) return fail(MALFORMED);
  }
}

function object(ctx: number, depth: number): boolean {
  if (depth > MAX_DEPTH) return fail(UNUSUAL);
  p++;
  skipWs();
  if (p < end && b[p] === 0x7d /* } */) {
    p++;
    return true;
  }
  let seen = 0; // keys of interest met in this object, one bit each
  for (;;) {
    skipWs();
    if (p >= end || b[p] !== QUOTE || !string()) return fail(MALFORMED);
    const keyStart = strStart;
    const keyEnd = strEnd;
    const keyEscaped = strEscaped;
    skipWs();
    if (p >= end || b[p++] !== 0x3a /* : */) return fail(MALFORMED);
    skipWs();
    // An escaped name could spell a key of interest; JSON.parse settles it.
    if (ctx !== OTHER && keyEscaped) return fail(UNUSUAL);
    const key = ctx === OTHER ? 0 : keyOfInterest(ctx, keyStart, keyEnd);
    if (key === 0) {
      if (!value(OTHER, depth)) return false;
    } else {
      if (seen & key) return fail(UNUSUAL); // JSON.parse keeps the last of repeated keys
      seen |= key;
      if (!member(ctx, key, depth)) return false;
    }
    skipWs();
    if (p >= end) return fail(MALFORMED);
    const c = b[p++];
    if (c === 0x7d) return true;
    if (c !== 0x2c) return fail(MALFORMED);
  }
}

// Keys of interest, as bits (unique within their context).
const ERROR = 1;
const OBJECT = 2;
const CHOICES_KEY = 4;
const USAGE_KEY = 8;
const DELTA_KEY = 1;
const TEXT = 2;
const CONTENT = 1;
const REASONING_CONTENT = 2;
const REASONING = 4;
const COMPLETION_TOKENS = 1;
const PROMPT_TOKENS = 2;

function keyOfInterest(ctx: number, s: number, e: number): number {
  switch (ctx) {
    case ROOT:
      return is(K_CHOICES, s, e)
        ? CHOICES_KEY
        : is(K_USAGE, s, e)
          ? USAGE_KEY
          : is(K_ERROR, s, e)
            ? ERROR
            : is(K_OBJECT, s, e)
              ? OBJECT
              : 0;
    case CHOICE0:
      return is(K_DELTA, s, e) ? DELTA_KEY : is(K_TEXT, s, e) ? TEXT : 0;
    case DELTA:
      return is(K_CONTENT, s, e) ? CONTENT : is(K_REASONING_CONTENT, s, e) ? REASONING_CONTENT : is(K_REASONING, s, e) ? REASONING : 0;
    case USAGE:
      return is(K_COMPLETION_TOKENS, s, e) ? COMPLETION_TOKENS : is(K_PROMPT_TOKENS, s, e) ? PROMPT_TOKENS : 0;
    default:
      return 0;
  }
}

function is(key: Uint8Array, s: number, e: number): boolean {
  if (e - s !== key.length) return false;
  for (let i = 0; i < key.length; i++) if (b[s + i] !== key[i]) return false;
  return true;
}

const startsObject = () => b[p] === 0x7b;
const startsString = () => b[p] === QUOTE;
const isNull = () => b[p] === 0x6e;

/** Scans a member's value and records what it means. */
function member(ctx: number, key: number, depth: number): boolean {
  if (p >= end) return fail(MALFORMED);
  if (ctx === ROOT) {
    // An error payload: the caller parses it for its message.
    if (key === ERROR) return isNull() ? literal('null') : fail(UNUSUAL);
    if (key === OBJECT) {
      if (!startsString()) return value(OTHER, depth);
      if (!string()) return false;
      return strEscaped || is(K_ERROR, strStart, strEnd) ? fail(UNUSUAL) : true;
    }
    if (key === CHOICES_KEY) return value(b[p] === 0x5b ? CHOICES : OTHER, depth);
    return value(startsObject() ? USAGE : OTHER, depth); // USAGE_KEY
  }
  if (ctx === CHOICE0) {
    if (key === DELTA_KEY) {
      if (!isNull()) out.hasDelta = true;
      return value(startsObject() ? DELTA : OTHER, depth);
    }
    // TEXT
    if (!startsString()) return value(OTHER, depth);
    if (!string()) return false;
    out.text = strEnd > strStart;
    return true;
  }
  if (ctx === DELTA) {
    if (!startsString()) return value(OTHER, depth);
    if (!string()) return false;
    if (strEnd > strStart) {
      if (key === CONTENT) out.answer = true;
      else out.reasoning = true;
    }
    return true;
  }
  // USAGE
  const isNumber = b[p] === 0x2d || (b[p] >= 0x30 && b[p] <= 0x39);
  if (!value(OTHER, depth)) return false;
  if (!isNumber) return true;
  if (Number.isNaN(intValue)) return fail(UNUSUAL);
  if (key === COMPLETION_TOKENS) out.completionTokens = intValue;
  else out.promptTokens = intValue;
  return true;
}
