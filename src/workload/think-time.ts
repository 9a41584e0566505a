import type { Rng } from '../rng.js';
import { parseDuration } from '../spec/duration.js';
import type { ThinkTime } from '../spec/types.js';

/**
 * Think time in ms between a turn's end and the next turn's intended send time. Exponential
 * by inversion: −mean · ln(1 − U) with U uniform on [0, 1), so the draw is finite.
 */
export function thinkSampler(t: ThinkTime): (rng: Rng) => number {
  if (typeof t === 'string') {
    const ms = parseDuration(t);
    return () => ms;
  }
  if (t.dist === 'uniform') {
    const [lo, hi] = [parseDuration(t.min), parseDuration(t.max)].sort((a, b) => a - b);
    return (rng) => lo + rng.next() * (hi - lo);
  }
  const mean = parseDuration(t.mean);
  return (rng) => -mean * Math.log(1 - rng.next());
}
