import type { Result } from '../result/types.js';
import type { ResolvedSpec } from '../spec/types.js';
import type { Calibration } from '../workload/types.js';
import type { Progress } from './measure.js';

/** What a generator thread is started with: plain data, cloned into the thread. */
export interface WorkerInit {
  resolved: ResolvedSpec;
  baseUrl: string;
  simulator: boolean;
  /** The main thread calibrated once; every thread builds prompts with the same calibration. */
  calibration: Calibration;
  /** Distinct per thread, so no two threads' prompts share a prefix. */
  salt: number;
  runId: string;
  /** This thread's index among the run's generator threads. */
  thread: number;
  records: boolean;
}

export type ToWorker = { type: 'start'; runStart: number } | { type: 'abort' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'progress'; progress: Progress }
  | { type: 'records'; lines: string[] }
  | { type: 'result'; result: Result }
  | { type: 'error'; message: string };
