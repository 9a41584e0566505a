import { newHistogram, summarizeCounts, type CountSummary } from '../metrics/histogram.js';
import { round3 } from '../numbers.js';
import type { WorkloadInputs } from './inputs.js';
import type { Calibration, WorkloadPlan } from './types.js';

/* What the result says about a workload: its plan, and summaries of its length distributions. */

/** Prompt tokens an unbounded prefix cache would already hold, of all prompt tokens sent so far. */
export interface CacheTally {
  cacheable: number;
  total: number;
}

export function plan(
  inputs: WorkloadInputs,
  calibration: Calibration,
  salt: number,
  cache: CacheTally,
  dataset: WorkloadPlan['dataset'],
): WorkloadPlan {
  const w = inputs.spec.workload;
  const mode = dataset
    ? 'dataset'
    : w.prefix && w.prefix_groups
      ? 'shared+groups'
      : w.prefix
        ? 'shared'
        : w.prefix_groups
          ? 'groups'
          : 'unique';
  return {
    source: dataset ? 'dataset' : 'synthetic',
    output_control: w.output_control,
    calibration,
    prefix: { mode, expected_cache_hit_ratio: cache.total > 0 ? round3(cache.cacheable / cache.total) : 0 },
    dataset,
    files: inputs.files,
    salt,
  };
}

export function summarize(values: number[]): CountSummary | null {
  const h = newHistogram();
  for (const v of values) h.recordValue(v);
  return summarizeCounts(h);
}
