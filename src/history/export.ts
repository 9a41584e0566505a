import { figureLabel } from './line.js';
import type { HistoryLine } from './types.js';

/** One entry of github-action-benchmark's custom tools' input (customSmallerIsBetter / customBiggerIsBetter). */
export interface BenchmarkActionEntry {
  name: string;
  unit: string;
  value: number;
  range?: string;
  extra?: string;
}

/**
 * A line as github-action-benchmark's `customSmallerIsBetter` (latencies, error rate) or
 * `customBiggerIsBetter` (throughputs, goodput) file: that tool takes one direction per file, so
 * a workflow feeds it both. The interval goes in `range` as ± half its width.
 */
export function toBenchmarkAction(line: HistoryLine, better: 'smaller' | 'bigger'): BenchmarkActionEntry[] {
  const want = better === 'smaller' ? 'lower' : 'higher';
  return Object.entries(line.metrics)
    .filter(([, f]) => f.better === want)
    .map(([key, f]) => ({
      name: `${line.spec_name} ${figureLabel(key)}`,
      unit: f.unit,
      value: f.value,
      ...(f.lower !== null && f.upper !== null ? { range: `± ${round((f.upper - f.lower) / 2)}` } : {}),
      extra: [`run ${line.run_id}`, line.commit ? `commit ${line.commit.slice(0, 12)}` : null, `verdict ${line.verdict}`]
        .filter(Boolean)
        .join('\n'),
    }));
}

/** Bencher Metric Format: benchmark → measure → { value, lower_value, upper_value }. */
export type Bmf = Record<string, Record<string, { value: number; lower_value?: number; upper_value?: number }>>;

/**
 * A line as Bencher's BMF JSON: the benchmark is the spec, each history key a measure (its slug
 * as the gate spells it, with its unit: tpot_p50_ms, output_tokens_per_s), so `bencher run
 * --adapter json` files them under measures that say what they are.
 */
export function toBmf(line: HistoryLine): Bmf {
  const measures: Bmf[string] = {};
  for (const [key, f] of Object.entries(line.metrics)) {
    const slug = f.unit === 'ms' ? `${key}_ms` : key;
    measures[slug] = {
      value: f.value,
      ...(f.lower !== null ? { lower_value: f.lower } : {}),
      ...(f.upper !== null ? { upper_value: f.upper } : {}),
    };
  }
  return { [line.spec_name]: measures };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
