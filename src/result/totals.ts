import type { CountSummary, DelayTail, Histogram } from '../metrics/histogram.js';
import type { Recorder } from '../metrics/recorder.js';
import type { WindowCpu } from '../metrics/window-cpu.js';
import type { Spec } from '../spec/types.js';
import type { WorkloadPlan } from '../workload/types.js';
import type { ConnectionFacts } from './connections.js';
import type { PatternSection } from './pattern.js';
import type { ServerView } from './server-view.js';
import type { Segments } from './segments.js';
import type { AbortInfo, MergeInfo, ReplicateSpread, Result, ValidityCheck } from './types.js';

/** The recorder's counters (src/metrics/recorder.ts): what a run counted, and what merging adds up. */
export type RunCounts = Pick<
  Recorder,
  | 'scheduled'
  | 'byClass'
  | 'windowScheduled'
  | 'windowByClass'
  | 'windowDispatched'
  | 'windowOk'
  | 'windowGood'
  | 'completedInWindow'
  | 'completedPromptTokens'
  | 'completedOutputTokens'
  | 'usageMissing'
  | 'usageChunkMismatch'
  | 'windowShortRequests'
  | 'windowShortTokens'
  | 'inFlightIntegral'
  | 'windowTimeInSystem'
>;

/** Counts per interval over the whole run, as src/metrics/timeseries.ts keeps them. */
export interface SeriesTotals {
  intervalS: number;
  sent: number[];
  ok: number[];
  errors: number[];
  outputTokens: number[];
}

/**
 * Everything a result is computed from: a recorder's counters and histograms (or several
 * recorders' added up) and the facts of the run around them. One run's come from its recorder
 * (build.ts), a merge's from its inputs (merge.ts); src/result/assemble.ts turns either into
 * the result document, so a new result section is computed in one place.
 */
export interface RunTotals {
  runId: string;
  createdAt: string;
  /** The spec of the whole run (for shards, the rates or concurrencies added). */
  spec: Spec;
  specHash: string;
  target: Result['target'];
  environment: Result['environment'];
  warmupS: number;
  cooldownS: number;
  /** Length of the measured window covered, s: shards share one; replicates' add. */
  windowS: number;
  interrupted: boolean;
  notReached: number;
  counts: RunCounts;
  errorSamples: Result['requests']['error_samples'];
  /** By recorder histogram name; a merge holds every name any input had. */
  histograms: Record<string, Histogram>;
  series: SeriesTotals;
  /** Per-slice window percentiles (src/result/segments.ts); undefined when unknown (older inputs, replicates). */
  segments?: Segments;
  generator: {
    eventLoopDelayMs: DelayTail;
    cpuS: number;
    cpuUtilization: number;
    heapMb: number;
    rssMb: number;
    /** Undefined: not measured by every input (results older than the measurement). */
    windowCpu: WindowCpu | null | undefined;
    /** False when some input predates the pool-wait histogram: its summary and check are then left out. */
    poolWaitMeasured: boolean;
    /**
     * Event-loop time the timestamp error's histograms cover, ms (src/result/timestamp-error.ts);
     * undefined when not measured (a result built without a loop, or some input older than it).
     */
    loopObservedMs?: number;
  };
  /** The workload generator's account of itself; each field absent when unknown (a result built without one, older inputs). */
  workload: {
    inputSpec?: CountSummary | null;
    outputSpec?: CountSummary | null;
    plan?: WorkloadPlan;
    /** Whether the output shortfall was counted. */
    shortfall: boolean;
  };
  definitions: Record<string, string>;
  /** Set when the totals combine several results or generator threads: named in the load label. */
  parts?: { how: 'shards' | 'replicates' | 'threads'; count: number };
  merge?: MergeInfo;
  replicates?: ReplicateSpread;
  /**
   * Most requests in flight at once during the window. A run's recorder counts it; a merge takes
   * the highest of replicates (they ran one after another) and the sum of shards (an upper bound:
   * their peaks need not coincide). Undefined when some input predates the measurement.
   */
  peakInFlight?: number;
  /** Checks that only a merge can make (its inputs' validity), appended to the run's own. */
  extraChecks?: ValidityCheck[];
  /** Re-sent requests and keep-alive (src/result/connections.ts); each field absent when unknown (older inputs). */
  connections?: ConnectionFacts;
  /** A time-varying load's section (src/result/pattern.ts); absent for a steady rate. */
  pattern?: PatternSection;
  /** Why load.abort stopped the run, when it did. */
  abort?: AbortInfo;
  /** The server view and the network probe (src/result/server-view.ts); absent when not measured. */
  serverView?: ServerView;
}

/**
 * The counters behind a result, recovered from its sections. Counts stored as such come back
 * exactly; those stored only as rates or means (completions, dispatches, the Little's-law
 * integrals, the shortfall) come back as rate × window, which is what assemble.ts divides again.
 */
export function resultCounts(r: Result): RunCounts {
  const w = r.load.window_s;
  const shortfall = r.workload.output_tokens.shortfall;
  return {
    scheduled: r.requests.scheduled,
    byClass: { ...r.requests.by_class },
    windowScheduled: r.requests.window.scheduled,
    windowByClass: { ...r.requests.window.by_class },
    windowDispatched: r.load.achieved_rate_per_s * w,
    windowOk: r.requests.window.by_class.ok,
    windowGood: r.goodput.requests,
    completedInWindow: r.throughput.requests_per_s * w,
    completedPromptTokens: (r.throughput.total_tokens_per_s - r.throughput.output_tokens_per_s) * w,
    completedOutputTokens: r.throughput.output_tokens_per_s * w,
    usageMissing: r.workload.usage_missing,
    usageChunkMismatch: r.workload.usage_chunk_mismatch,
    windowShortRequests: shortfall?.requests ?? 0,
    windowShortTokens: (shortfall?.requests ?? 0) * (shortfall?.mean_tokens ?? 0),
    // L = ∫ in-flight dt / window and λW = Σ time in system / window (assemble.ts), in ms.
    inFlightIntegral: r.littles_law.mean_in_flight * w * 1000,
    windowTimeInSystem: r.littles_law.predicted_in_flight * w * 1000,
  };
}
