import type { SchemaObject } from 'ajv';
import { resultSchema } from '../result/schema.js';
import { SWEEP_KIND, SWEEP_SCHEMA_VERSION } from './document.js';

/*
 * JSON Schema (draft-07) of a sweep document, schema_version 1 (src/capacity/document.ts).
 * Each point's result is held to result.json's own schema (by $ref to RESULT_SCHEMA_ID), so a
 * point can be cut out and used as a baseline. As there, objects accept extra keys: fields added
 * without a version bump must not make older loadgates reject newer files.
 */

export const RESULT_SCHEMA_ID = 'https://loadgate.dev/schema/result.json';

/** result.json's schema under an $id, so the sweep schema can refer to it. */
export const identifiedResultSchema: SchemaObject = { ...resultSchema, $id: RESULT_SCHEMA_ID };

const num = { type: 'number' };
const str = { type: 'string' };
const bool = { type: 'boolean' };
const nullable = (schema: object) => ({ anyOf: [{ type: 'null' }, schema] });
const obj = (properties: Record<string, object>) => ({ type: 'object', required: Object.keys(properties), properties });
const nnum = nullable(num);

const point = obj({
  role: { enum: ['probe', 'below', 'throughput', 'step', 'fill', 'bisect', 'knee'] },
  mode: { enum: ['open', 'closed'] },
  rate_per_s: nnum,
  concurrency: nullable({ type: 'integer', minimum: 1 }),
  result: { $ref: `${RESULT_SCHEMA_ID}#` },
});

const analysis = obj({
  mode: { enum: ['open', 'closed'] },
  metric: { enum: ['ttft', 'e2e'] },
  service_floor_ms: nnum,
  service_floor: obj({ point: nnum, p50_ms: nnum, rule: str }),
  knee: obj({ rate_per_s: nnum, concurrency: nnum, point: nnum, p99_ms: nnum, limit_ms: nnum, rule: str }),
  saturation: obj({ requests_per_s: nnum, output_tokens_per_s: nnum, reached: bool, points: { type: 'array', items: num }, rule: str }),
  capacity_at_slo: obj({ rate_per_s: nnum, target: num, passing_load: nnum, failing_load: nnum, precision: num, rule: str }),
  batch_slots: nnum,
  oversubscribed: { type: 'array', items: str },
  points: { type: 'array', items: obj({ index: num, load: num, requests_per_s: num, saturated: bool, valid: bool }) },
});

export const sweepSchema: SchemaObject = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  ...obj({
    schema_version: { const: SWEEP_SCHEMA_VERSION },
    kind: { const: SWEEP_KIND },
    tool: obj({ name: { const: 'loadgate' }, version: str }),
    created_at: str,
    label: str,
    spec: obj({ name: str, target: { type: 'object' }, sweep: { type: 'object' } }),
    spec_hash: str,
    target: obj({ url: str, api: str, model: str, simulator: bool }),
    interrupted: bool,
    stopped_because: str,
    skipped_loads: { type: 'array', items: num },
    points: { type: 'array', items: point },
    analysis,
    sizing: nullable(obj({ replicas: { type: 'integer', minimum: 1 }, replicas_formula: str, kv_sequences: num, timeout_ms: num })),
  }),
};
