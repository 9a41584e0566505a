import type { AnalysisOptions, PointRole, SweepPoint } from '../capacity/types.js';
import { sig4 } from '../numbers.js';
import type { Progress } from '../run/run.js';
import type { ResolvedSpec } from '../spec/types.js';

/** What the progress display is told about the point about to run. */
export interface PointInfo {
  /** 1-based. */
  number: number;
  role: PointRole;
  mode: 'open' | 'closed';
  load: number;
  /** Points planned so far (grows as auto, fill and bisection add points). */
  planned: number;
}

export interface SweepRunOptions {
  /** A resolved spec with a sweep section. */
  resolved: ResolvedSpec;
  /** Aborting ends the point in progress (its result is kept, marked interrupted) and the sweep. */
  signal?: AbortSignal;
  workers?: number;
  onPointStart?: (p: PointInfo) => void;
  /** After each point, with the reason it is past saturation (null: not). */
  onPointDone?: (p: PointInfo, point: SweepPoint, saturatedBecause: string | null) => void;
  onProgress?: (p: Progress) => void;
}

/** A sweep in progress: its points so far and what measures the next; shared by the ladders (auto.ts) and refinement. */
export interface SweepRun {
  o: SweepRunOptions;
  points: SweepPoint[];
  skipped: number[];
  planned: number;
  options: AnalysisOptions;
  aborted: () => boolean;
  /** Measures one point; returns why it is past saturation, or null. */
  measure: (role: PointRole, mode: 'open' | 'closed', load: number) => Promise<string | null>;
}

export const describeLoad = (mode: 'open' | 'closed', load: number) => (mode === 'open' ? `${sig4(load)} req/s` : `concurrency ${load}`);
