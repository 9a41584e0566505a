import type { Result } from '../result/types.js';
import { compare } from './compare.js';
import { gateOf, type GateSpec } from './rules-schema.js';
import type { GateReport } from './types.js';

/** The verdict of a run on its own (no baseline): validity and the absolute SLO rules of its spec's gate. */
export function evaluate(result: Result, gate: GateSpec = gateOf(result.spec)): GateReport {
  return compare(null, result, gate);
}
