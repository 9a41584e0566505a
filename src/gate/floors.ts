import type { Result } from '../result/types.js';
import type { LatencyIncreaseRule, LatencyKey } from '../spec/gate-schema.js';
import { num } from '../numbers.js';
import { latencyTarget } from './targets.js';
import { errorBound } from './timing-validity.js';

/*
 * The absolute floor of a latency regression rule: the smallest rise the two runs can resolve.
 * A percentile of either run can be late by up to that run's timestamp error bound e at that
 * percentile (timing-validity.ts errorBound), so a difference of two runs can be off by up to
 * max(e_b, e_c) in either direction from timer error alone; the floor is FLOOR_ERROR_MULTIPLE
 * times that, which is also the smallest allowed rise whose timing the gate judges at the default
 * max_timestamp_error_share (25 %: 4 × the bound), plus the histogram's quantization of both
 * percentiles (HdrHistogram at 3 significant digits: a bucket spans at most 1/1024 of its value,
 * and values are whole microseconds). A fixed `max_increase_ms` in the spec replaces it.
 */
export const FLOOR_ERROR_MULTIPLE = 4;
/** HdrHistogram's relative bucket width at 3 significant digits (2048 sub-buckets, the upper half used per magnitude). */
const HISTOGRAM_RELATIVE_RESOLUTION = 1 / 1024;
const MICROSECOND_MS = 0.001;

/** The quantization of one recorded percentile at value v, ms. */
const resolutionAt = (v: number) => Math.max(MICROSECOND_MS, v * HISTOGRAM_RELATIVE_RESOLUTION);

export interface Floor {
  ms: number;
  /** How it was set, for the rule's limit text. */
  source: 'spec' | 'resolvable';
  text: string;
}

/** The floor of rule `key` between a baseline and a current run (the current may be absent: `plan` assumes its bound is the baseline's). */
export function latencyFloor(key: LatencyKey, rule: LatencyIncreaseRule, base: Result, cur: Result | null, baselineValue: number): Floor {
  if (rule.max_increase_ms !== undefined) return { ms: rule.max_increase_ms, source: 'spec', text: `${rule.max_increase_ms} ms` };
  const t = latencyTarget(key);
  const e = Math.max(errorBound(base, t.p, t.gate).ms, cur ? errorBound(cur, t.p, t.gate).ms : 0);
  const ms = FLOOR_ERROR_MULTIPLE * e + 2 * resolutionAt(baselineValue);
  return {
    ms,
    source: 'resolvable',
    text: `${num(ms)} ms (what the runs resolve: ${FLOOR_ERROR_MULTIPLE} × the larger timestamp error bound ${num(e)} ms, plus the histogram's resolution)`,
  };
}
