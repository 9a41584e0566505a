/**
 * One line of a history file: what a nightly run leaves behind for the trend, the change-point
 * search and the "since when" of later reports. The histograms stay in the result artifacts;
 * a line holds each gated figure with its interval, so the file stays small enough to keep on a
 * branch for years.
 */
export const HISTORY_LINE_VERSION = 1;

/** Which way a figure gets worse: latencies rise, throughputs fall. */
export type Better = 'lower' | 'higher';

export interface HistoryFigure {
  value: number;
  /** A 95 % interval of the value from this run's own samples (bootstrap for percentiles, Poisson for rates). */
  lower: number | null;
  upper: number | null;
  unit: 'ms' | 'tok/s' | 'req/s' | 'fraction';
  better: Better;
  /** How far this run's timestamps can have moved this figure (ms), as the gate reads it per metric and percentile: a latency change smaller than this is not visible. */
  timestamp_error_ms: number | null;
}

export interface HistoryLine {
  v: number;
  /** The result's run id: a line is never written twice for one run. */
  run_id: string;
  /** When the run was made (the result's created_at). */
  date: string;
  commit: string | null;
  ref: string | null;
  spec_name: string;
  spec_hash: string;
  runner: string | null;
  verdict: 'pass' | 'fail' | 'inconclusive';
  /** Keyed like the gate's rules: ttft_p95, tpot_p50, output_tokens_per_s, error_rate, … */
  metrics: Record<string, HistoryFigure>;
}

/** Where a run came from, beyond what its result says. */
export interface LineMeta {
  commit?: string | null;
  ref?: string | null;
  runner?: string | null;
  verdict?: HistoryLine['verdict'];
}

export interface ChangePoint {
  /** The history key, e.g. tpot_p50, and its label, e.g. "TPOT p50". */
  metric: string;
  label: string;
  /** The first night after the change, 0-based in the analysed series. */
  index: number;
  date: string;
  commit: string | null;
  run_id: string;
  /** Mean of the segment before the change and of the one after it (up to the neighbouring change points). */
  before: number;
  after: number;
  /** (after − before) / before. */
  change: number;
  p_value: number;
  /** worse: the figure moved the way its `better` says it should not. */
  direction: 'worse' | 'better';
  unit: HistoryFigure['unit'];
  /** Among the latest `fail_nights` nights: a worse one there fails the nightly. */
  recent: boolean;
}

export interface CheckSettings {
  /** Chance that the whole check reports a change point when no figure changed (split over the metrics searched). */
  false_alarm_rate: number;
  permutations: number;
  /** Fewest nights on either side of a change point. */
  min_size: number;
  /** A change point smaller than this relative change (percent) is not reported. */
  min_change_pct: number;
  /** A worse change point among this many latest nights fails the check; 0: never fails. */
  fail_nights: number;
  seed: number;
}

export const DEFAULT_CHECK: CheckSettings = {
  false_alarm_rate: 0.05,
  permutations: 999,
  min_size: 3,
  min_change_pct: 5,
  fail_nights: 5,
  seed: 1,
};
