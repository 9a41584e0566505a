import { Type, type Static } from '../json-schema.js';

const thinkDuration = Type.String({ description: 'a duration such as 0s, 300ms, 5s' });

/**
 * A think time: a fixed duration, or a distribution of durations. Its objects accept extra
 * keys here because the result carries a think time (workload.plan.sessions); the spec's
 * schema closes them (schema.ts).
 */
export const ThinkTimeSchema = Type.Union([
  thinkDuration,
  Type.Object({ dist: Type.Literal('uniform'), min: thinkDuration, max: thinkDuration }),
  Type.Object({ dist: Type.Literal('exponential'), mean: thinkDuration }),
]);
export type ThinkTime = Static<typeof ThinkTimeSchema>;
