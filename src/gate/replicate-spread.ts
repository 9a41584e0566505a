import type { Result } from '../result/types.js';

/**
 * Between-run standard error of a metric in a merged result, from its replicate spread:
 * cv · value / √replicates. Zero for a single run (its noise is all in the histograms).
 */
export function replicateSe(r: Result, key: string, value: number): number {
  const spread = r.replicates;
  const cv = spread?.cv[key];
  return spread && cv !== undefined ? (cv * Math.abs(value)) / Math.sqrt(spread.count) : 0;
}
