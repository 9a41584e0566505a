import type { LengthDist } from '../spec/types.js';
import { normal, type Rng } from '../rng.js';
import { SpecError } from '../spec/error.js';
import { figure, MAX_LENGTH_FILE_LINES, MAX_TOKENS_PER_REQUEST } from '../spec/limits.js';
import { jsonProblem } from '../spec/read-file.js';

/** A length distribution ready to sample: an empirical `file` has been read into values and weights. */
export type LengthSource = Exclude<LengthDist, { file: string }>;

/** Draws token counts; every sample is an integer ≥ 1. */
export type LengthSampler = (rng: Rng) => number;

export function lengthSampler(d: LengthSource): LengthSampler {
  switch (d.dist) {
    case 'fixed':
      return () => d.value;
    case 'uniform': {
      const [lo, hi] = uniformBounds(d);
      return (rng) => lo + Math.floor(rng.next() * (hi - lo + 1));
    }
    case 'normal':
      return (rng) => clip(d.mean + d.stddev * normal(rng), d.min, d.max);
    case 'lognormal': {
      const { mu, sigma } = lognormalParams(d.mean, d.stddev);
      return (rng) => clip(Math.exp(mu + sigma * normal(rng)), d.min, d.max);
    }
    case 'empirical':
      return empiricalSampler(d.values, d.weights);
  }
}

/** vLLM's range_ratio form covers [mean·(1 − r), mean·(1 + r)], rounded to whole tokens. */
export function uniformBounds(d: Extract<LengthDist, { dist: 'uniform' }>): [number, number] {
  if ('min' in d) return [d.min, d.max];
  const lo = Math.max(1, Math.round(d.mean * (1 - d.range_ratio)));
  return [lo, Math.max(lo, Math.round(d.mean * (1 + d.range_ratio)))];
}

/**
 * μ and σ of the underlying normal for lengths with the given mean m and stddev s:
 * a lognormal has mean exp(μ + σ²/2) and variance (exp(σ²) − 1)·exp(2μ + σ²), so
 * σ² = ln(1 + s²/m²) and μ = ln m − σ²/2.
 */
export function lognormalParams(mean: number, stddev: number): { mu: number; sigma: number } {
  const sigma2 = Math.log(1 + (stddev / mean) ** 2);
  return { mu: Math.log(mean) - sigma2 / 2, sigma: Math.sqrt(sigma2) };
}

function clip(x: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  return Math.max(min, Math.min(max, Math.round(x)), 1);
}

/** Inverse-CDF sampling by binary search over cumulative weights (equal weights when none are given). */
function empiricalSampler(values: number[], weights?: number[]): LengthSampler {
  const cumulative: number[] = [];
  let total = 0;
  values.forEach((_, i) => cumulative.push((total += weights?.[i] ?? 1)));
  return (rng) => {
    const u = rng.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return values[lo];
  };
}

/**
 * A length file as values and weights. Accepted: a JSON list of lengths or of
 * `[length, count]` pairs; or text with one length, or `length,count` (comma, tab or
 * spaces), per line, where blank lines, `#` comments and a header line are skipped.
 * `name` is how messages call the file: `lengths.csv:3: "abc" is not a length; …`.
 */
export function parseLengthFile(text: string, name: string): { values: number[]; weights: number[] } {
  const values: number[] = [];
  const weights: number[] = [];
  const add = (where: string, length: unknown, count: unknown = 1) => {
    if (!Number.isInteger(length) || (length as number) < 1 || (length as number) > MAX_TOKENS_PER_REQUEST)
      throw new SpecError(
        `${where}: ${show(length)} is not a length; expected a positive integer of at most ${figure(MAX_TOKENS_PER_REQUEST)}`,
      );
    if (typeof count !== 'number' || !(count >= 0) || !Number.isFinite(count))
      throw new SpecError(`${where}: the count ${show(count)} is not a number ≥ 0; expected length,count`);
    if (values.length >= MAX_LENGTH_FILE_LINES)
      throw new SpecError(
        `${name}: holds more than ${figure(MAX_LENGTH_FILE_LINES)} lengths; expected at most that many (give counts: length,count)`,
      );
    values.push(length as number);
    weights.push(count);
  };
  const body = text.replace(/^\uFEFF/, '').trim();
  if (body.startsWith('[')) {
    let data: unknown[];
    try {
      data = JSON.parse(body) as unknown[];
    } catch (err) {
      throw new SpecError(`${name}: not valid JSON (${jsonProblem(err, body)}); expected a list of lengths or of [length, count] pairs`);
    }
    data.forEach((item, i) =>
      Array.isArray(item) && item.length === 2 ? add(`${name}: entry ${i + 1}`, item[0], item[1]) : add(`${name}: entry ${i + 1}`, item),
    );
  } else {
    let first = true;
    body.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.replace(/#.*/, '').trim();
      if (line === '') return;
      const fields = line.split(/\s*[,\t ]\s*/).map(numeric);
      const header = first && fields.some((f) => typeof f === 'string');
      first = false;
      if (header) return;
      if (fields.length > 2) throw new SpecError(`${name}:${i + 1}: ${fields.length} fields; expected a length, or length,count`);
      add(`${name}:${i + 1}`, fields[0], fields[1]);
    });
  }
  if (values.length === 0) throw new SpecError(`${name}: holds no lengths; expected at least one`);
  if (!weights.some((w) => w > 0)) throw new SpecError(`${name}: every count is 0; expected at least one count > 0`);
  return { values, weights };
}

const numeric = (field: string): number | string => (field !== '' && Number.isFinite(Number(field)) ? Number(field) : field);
/** A field as a message may name it: a number as itself, text never (the file may hold anything). */
const show = (v: unknown) =>
  typeof v === 'number'
    ? String(v)
    : typeof v === 'string'
      ? 'text'
      : v === undefined
        ? 'nothing'
        : `a ${Array.isArray(v) ? 'list' : typeof v}`;
