/*
 * How loadgate rounds and prints numbers: one rule for results, one for the text of reports,
 * gate reasons and the console.
 */

/** Rounded to 3 decimal places: how results store derived figures (ms to the µs, rates to 1/1000). */
export const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A count with thousands separators, `1234567` → `1,234,567` (exponent form from 1e15). Written
 * out rather than toLocaleString('en-US'): the schemas word their limits with it as they load,
 * and the first locale call loads ICU's number data, some 15–40 ms of every start.
 */
export const figure = (n: number): string => (n >= 1e15 ? n.toExponential(1) : String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ','));

/** A figure in a sentence: 4 significant digits, no trailing zeros (22.73, 0.2567, 1438). */
export const sig4 = (x: number) => String(Number(x.toPrecision(4)));

/** A number in text: 3 significant figures (at most 2 decimals), a real minus sign, a sign when asked. */
export function num(v: number, signed = false): string {
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  const text = Math.abs(v).toFixed(digits);
  return `${v < 0 && Number(text) !== 0 ? '−' : signed ? '+' : ''}${text}`;
}

/** A fraction as a percentage, e.g. "12.5 %". */
export const pctText = (fraction: number, signed = false) => `${num(fraction * 100, signed)} %`;

/** A confidence level, e.g. "95 %" or "97.5 %". */
export const confText = (confidence: number) => `${Math.round(confidence * 1000) / 10} %`;

/**
 * The largest of `xs` (`init` when there are none), in a loop. `Math.max(...xs)` passes every
 * element as an argument, and past about 100 k elements (a long time series) that overflows
 * the stack; ESLint refuses the spread (eslint.config.js).
 */
export function maxOf(xs: Iterable<number>, init = -Infinity): number {
  let m = init;
  for (const x of xs) if (x > m || Number.isNaN(x)) m = x;
  return m;
}

/** The smallest of `xs` (`init` when there are none); see maxOf. */
export function minOf(xs: Iterable<number>, init = Infinity): number {
  let m = init;
  for (const x of xs) if (x < m || Number.isNaN(x)) m = x;
  return m;
}

/** Appends every element of `src` to `dst`, in a loop (`dst.push(...src)` overflows the stack on long arrays); returns `dst`. */
export function appendAll<T>(dst: T[], src: Iterable<T>): T[] {
  for (const x of src) dst.push(x);
  return dst;
}
