import { SpecError } from '../spec/error.js';
import type { TraceSpec } from '../spec/types.js';

/**
 * Trace files, read into one shape. Two formats:
 *  - mooncake: JSON lines `{"timestamp": ms, "input_length": n, "output_length": n, "hash_ids": [..]}`,
 *    each hash id naming one 512-token block of the prompt (Mooncake's published traces);
 *  - azure: the Azure LLM inference trace CSV, header `TIMESTAMP,ContextTokens,GeneratedTokens`,
 *    TIMESTAMP a date-time such as `2023-11-16 18:15:46.6805900` (read as UTC) or a number of seconds.
 * Times become milliseconds from the trace's start (Mooncake: its timestamps as written; Azure:
 * from the first row); rows are sorted by time (stable).
 */
export interface TraceEntry {
  /** Ms after the trace's start. */
  atMs: number;
  inputTokens: number;
  outputTokens: number;
  /** Mooncake: the prompt's blocks, in order; equal ids are equal text. */
  hashIds?: number[];
}

/** Mooncake's block size: each hash id covers this many prompt tokens. */
export const TRACE_BLOCK_TOKENS = 512;

const MOONCAKE_EXPECTED = 'expected {"timestamp": 0, "input_length": 512, "output_length": 64, "hash_ids": [0]}';
const AZURE_EXPECTED = 'expected a header TIMESTAMP,ContextTokens,GeneratedTokens and one row per request';

export function parseTrace(text: string, name: string, format: TraceSpec['format']): TraceEntry[] {
  const raw = format === 'mooncake' ? readMooncake(text.replace(/^\uFEFF/, ''), name) : readAzure(text.replace(/^\uFEFF/, ''), name);
  if (raw.length === 0) throw new SpecError(`${name}: holds no arrival; ${format === 'mooncake' ? MOONCAKE_EXPECTED : AZURE_EXPECTED}`);
  const sorted = raw.map((e, i) => ({ e, i })).sort((a, b) => a.e.atMs - b.e.atMs || a.i - b.i);
  // Mooncake's timestamps are already offsets from the trace's start; Azure's are dates, taken from the first row.
  const t0 = format === 'azure' ? sorted[0].e.atMs : 0;
  return sorted.map(({ e }) => ({ ...e, atMs: e.atMs - t0 }));
}

function readMooncake(text: string, name: string): TraceEntry[] {
  const out: TraceEntry[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `${name}:${i + 1}`;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (err) {
      throw new SpecError(`${where}: not valid JSON (${(err as Error).message}); ${MOONCAKE_EXPECTED}`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SpecError(`${where}: not a JSON object; ${MOONCAKE_EXPECTED}`);
    const o = v as Record<string, unknown>;
    const entry: TraceEntry = {
      atMs: number(o.timestamp, where, 'timestamp', 0),
      inputTokens: count(o.input_length, where, 'input_length'),
      outputTokens: count(o.output_length, where, 'output_length'),
    };
    if (o.hash_ids !== undefined) entry.hashIds = hashIds(o.hash_ids, where);
    out.push(entry);
  }
  return out;
}

function hashIds(v: unknown, where: string): number[] {
  if (!Array.isArray(v) || !v.every((h) => Number.isSafeInteger(h) && (h as number) >= 0))
    throw new SpecError(`${where}: "hash_ids" is not a list of integers ≥ 0; ${MOONCAKE_EXPECTED}`);
  return v as number[];
}

function readAzure(text: string, name: string): TraceEntry[] {
  const lines = text.split(/\r?\n/);
  const header = (lines[0] ?? '').split(',').map((h) => h.trim());
  const col = (key: string) => {
    const k = header.indexOf(key);
    if (k < 0) throw new SpecError(`${name}:1: no ${key} column (header ${JSON.stringify(lines[0] ?? '')}); ${AZURE_EXPECTED}`);
    return k;
  };
  const [ts, ctx, gen] = [col('TIMESTAMP'), col('ContextTokens'), col('GeneratedTokens')];
  const out: TraceEntry[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const where = `${name}:${i + 1}`;
    const cells = lines[i].split(',').map((c) => c.trim());
    out.push({
      atMs: azureTime(cells[ts] ?? '', where),
      inputTokens: count(Number(cells[ctx]), where, 'ContextTokens'),
      outputTokens: count(Number(cells[gen]), where, 'GeneratedTokens'),
    });
  }
  return out;
}

const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d+)?Z?$/;

/** A date-time with any number of fraction digits (Date.parse keeps only three), or seconds. */
function azureTime(cell: string, where: string): number {
  const m = DATE_TIME.exec(cell);
  if (m) {
    const [, y, mo, d, h, mi, s, frac] = m;
    return Date.UTC(+y, +mo - 1, +d, +h, +mi, +s) + (frac ? Number(frac) * 1000 : 0);
  }
  if (cell !== '' && Number.isFinite(Number(cell))) return Number(cell) * 1000;
  throw new SpecError(
    `${where}: TIMESTAMP ${JSON.stringify(cell)} is not a date-time or a number; expected e.g. 2023-11-16 18:15:46.6805900`,
  );
}

function number(v: unknown, where: string, key: string, min: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min)
    throw new SpecError(`${where}: "${key}" is ${JSON.stringify(v) ?? 'missing'}; expected a number ≥ ${min}`);
  return v;
}

function count(v: unknown, where: string, key: string): number {
  if (!Number.isInteger(v) || (v as number) < 1)
    throw new SpecError(`${where}: ${key} is ${JSON.stringify(v) ?? 'missing'}; expected a positive integer`);
  return v as number;
}
