import { performance } from 'node:perf_hooks';

const origin = performance.timeOrigin;

/** Absolute time in milliseconds with sub-millisecond precision; comparable across processes on one machine. */
export function now(): number {
  return origin + performance.now();
}
