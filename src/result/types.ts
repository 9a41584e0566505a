import type { Static } from '../json-schema.js';
import { METRICS, type MetricName } from '../metrics/definitions.js';
import type { HistogramName } from '../metrics/recorder.js';
import type { AbortInfoSchema, MERGE_MODES, MergeInfoSchema, ReplicateSpreadSchema, resultSchema, ValidityCheckSchema } from './schema.js';

export const RESULT_SCHEMA_VERSION = 1;

export type { MetricName };

/** Which recorder histogram (src/metrics/recorder.ts) each latency summary is computed from. */
export const METRIC_HISTOGRAM = Object.fromEntries(METRICS.map((m) => [m.key, m.histogram])) as Record<MetricName, HistogramName>;

/** How several results were combined (MERGE_MODES in schema.ts says what each means). */
export type MergeMode = (typeof MERGE_MODES)[number];
export type MergeInfo = Static<typeof MergeInfoSchema>;
export type ReplicateSpread = Static<typeof ReplicateSpreadSchema>;
export type ValidityCheck = Static<typeof ValidityCheckSchema>;
/** Why and when load.abort stopped a run; its gate verdict is inconclusive, or fail with load.abort.fail. */
export type AbortInfo = Static<typeof AbortInfoSchema>;

/** result.json: the Static of its JSON Schema (schema.ts), which says what each field means. */
export type Result = Static<typeof resultSchema>;
