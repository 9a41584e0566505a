import type { Static } from '../json-schema.js';
import type { SweepSpec } from '../spec/sweep-schema.js';
import type {
  KneeCheckSchema,
  LoadRangeSchema,
  POINT_ROLES,
  PointAnalysisSchema,
  SizingAnswerSchema,
  SweepAnalysisSchema,
  SweepPointSchema,
} from './schema.js';

/** The document's parts: the Static of each part of its schema (schema.ts), where each field is described. */
export type PointRole = (typeof POINT_ROLES)[number];
export type SweepPoint = Static<typeof SweepPointSchema>;
export type LoadRange = Static<typeof LoadRangeSchema>;
export type KneeCheck = Static<typeof KneeCheckSchema>;

/** What the analysis needs to know besides the points. */
export interface AnalysisOptions {
  metric: SweepSpec['metric'];
  sloTarget: number;
  stop: SweepSpec['stop'];
  /** Sequences one replica runs at once, when known (sizing.batch_slots, or the simulator's max_num_seqs). */
  batchSlots: number | null;
  /** Network round trip to subtract from S, ms, when one was measured (the result's network probe). */
  rttMs?: number | null;
  /** Relative resolution the bisection of capacity at SLO aims for. */
  precision: number;
}

export type PointAnalysis = Static<typeof PointAnalysisSchema>;
export type SweepAnalysis = Static<typeof SweepAnalysisSchema>;
export type SizingAnswer = Static<typeof SizingAnswerSchema>;
