import type { SchemaObject } from 'ajv';
import { OUTCOMES } from '../client/types.js';
import { PERCENTILES } from '../metrics/histogram.js';
import { segmentsSchema } from './segments.js';
import { METRIC_HISTOGRAM, RESULT_SCHEMA_VERSION } from './types.js';

/*
 * JSON Schema (draft-07) of result.json, schema_version 1, matching src/result/types.ts.
 * Objects accept extra keys: a field added without a schema_version bump (which is reserved
 * for changes old readers would misread) must not make older loadgates reject new files.
 */

const num = { type: 'number' };
const count = { type: 'integer', minimum: 0 };
const str = { type: 'string' };
/** An object with these required properties, and optionally some that may be absent. */
const obj = (properties: Record<string, object>, extra: { optional?: Record<string, object> } = {}) => ({
  type: 'object',
  required: Object.keys(properties),
  properties: { ...properties, ...extra.optional },
});
const nullable = (schema: object) => ({ anyOf: [{ type: 'null' }, schema] });
const numbers = { type: 'array', items: num };
/** Classes added later are optional, so results written before them still load. */
const LATER_OUTCOMES: readonly string[] = ['cancelled'];
const byClass = {
  type: 'object',
  required: OUTCOMES.filter((o) => !LATER_OUTCOMES.includes(o)),
  properties: Object.fromEntries(OUTCOMES.map((o) => [o, count])),
};
const summary = nullable({ $ref: '#/definitions/summary' });
const gauge = obj({ mean: num, max: num, last: num });
const serverQuantiles = nullable(
  obj({ count: num, mean: num, p50: num, p95: num, p99: num }, { optional: { buckets: obj({ le: numbers, counts: numbers, sum: num }) } }),
);
const gaugeSeries = { type: 'array', items: nullable(num) };
const twoQuantiles = nullable(obj({ p50: num, p99: num }));

const result = obj({
  schema_version: { const: RESULT_SCHEMA_VERSION },
  tool: obj({ name: { const: 'loadgate' }, version: str }),
  created_at: str,
  run_id: str,
  spec: obj({
    name: str,
    target: obj({ url: str, api: str, model: str }),
    workload: { type: 'object' },
    load: obj({ mode: { enum: ['open', 'closed'] }, rate: num, concurrency: num }),
    slo: obj({ ttft_ms: num, tpot_ms: num, e2e_ms: num }),
  }),
  spec_hash: str,
  target: obj({ url: str, api: { enum: ['chat', 'completions'] }, model: str, simulator: { type: 'boolean' } }),
  environment: obj({ node: str, platform: str, arch: str, cpus: num, cpu_model: str, workers: num }),
  load: obj({
    mode: { enum: ['open', 'closed'] },
    label: str,
    arrival: str,
    burstiness: num,
    concurrency: nullable(num),
    offered_rate_per_s: num,
    achieved_rate_per_s: num,
    warmup_s: num,
    window_s: num,
    cooldown_s: num,
    interrupted: { type: 'boolean' },
  }),
  requests: obj(
    {
      scheduled: count,
      by_class: byClass,
      not_reached: count,
      window: obj({ scheduled: count, by_class: byClass }),
      error_samples: { type: 'array', items: obj({ class: { enum: [...OUTCOMES] }, detail: str, count }) },
    },
    // Absent in results made before loadgate counted them (src/result/connections.ts).
    {
      optional: {
        reconnects: count,
        keep_alive: obj({ disabled: { type: 'boolean' }, responses_observed: count, server_closed: count }, { optional: { reason: str } }),
      },
    },
  ),
  metrics: obj(Object.fromEntries(Object.keys(METRIC_HISTOGRAM).map((m) => [m, summary]))),
  throughput: obj({ output_tokens_per_s: num, total_tokens_per_s: num, requests_per_s: num }),
  goodput: obj({ slo: obj({ ttft_ms: num, tpot_ms: num, e2e_ms: num }), requests: count, rate_per_s: num, fraction: nullable(num) }),
  rates: obj({ http_5xx: num, http_429: num, errors: num }),
  workload: obj({
    input_tokens: obj({ requested: summary, delivered: summary }),
    output_tokens: obj({ requested: summary, delivered: summary }),
    token_source: { enum: ['usage', 'chunks', 'mixed', 'none'] },
    usage_missing: count,
    usage_chunk_mismatch: count,
  }),
  generator: obj(
    {
      event_loop_delay_ms: obj({ p50: num, p99: num, max: num }),
      cpu_s: num,
      cpu_utilization: num,
      heap_mb: num,
      rss_mb: num,
    },
    // Absent in results made before loadgate bounded its timestamp error (src/result/timestamp-error.ts).
    {
      optional: {
        timestamp_error_ms: nullable(
          // delivery_ms: absent before the delivery floor was part of the bound.
          obj({ p50: num, p90: num, p99: num, max: num, method: str, observed_s: num }, { optional: { delivery_ms: num } }),
        ),
      },
    },
  ),
  littles_law: {
    ...obj({ mean_in_flight: num, predicted_in_flight: num, ratio: nullable(num) }),
    // Optional: absent in results made before loadgate measured it.
    properties: { mean_in_flight: num, predicted_in_flight: num, ratio: nullable(num), peak_in_flight: count },
  },
  validity: obj({
    valid: { type: 'boolean' },
    checks: { type: 'array', items: obj({ name: str, ok: { type: 'boolean' }, message: str }) },
  }),
  timeseries: obj({
    interval_s: { type: 'number', exclusiveMinimum: 0 },
    sent: numbers,
    ok: numbers,
    errors: numbers,
    output_tokens: numbers,
  }),
  histograms: { type: 'object', additionalProperties: str },
  definitions: { type: 'object', additionalProperties: str },
});

/** The pattern section: its common keys required, each kind's own block optional (only its kind has it). */
const patternSchema = (() => {
  const base = obj({
    kind: { enum: ['ramp', 'spike', 'steps', 'soak'] },
    interval_s: { type: 'number', exclusiveMinimum: 0 },
    sliding_window_s: num,
    window: obj({ from_s: num, to_s: num }),
    phases: { type: 'array', items: obj({ name: str, from_s: num, to_s: num, scheduled: count, ok: count, errors: count }) },
    series: obj({
      offered_per_s: numbers,
      scheduled: numbers,
      ok: numbers,
      errors: numbers,
      achieved_per_s: numbers,
      ttft_p95_ms: { type: 'array', items: nullable(num) },
    }),
    histograms: obj({ buckets_ttft: { type: 'array', items: str }, phases: { type: 'array' } }),
  });
  return {
    ...base,
    properties: {
      ...base.properties,
      spike: obj({ at_s: num, for_s: num, pre_ttft_p95_ms: nullable(num), recovery_s: nullable(num) }),
      steps: obj({ first_saturated: nullable(str), first_departed: nullable(str) }),
      soak: obj({
        segments: count,
        drift: {
          type: 'object',
          additionalProperties: obj({
            change: nullable({ type: 'object' }),
            bound: nullable(num),
            verdict: { enum: ['drift', 'none', 'inconclusive'] },
          }),
        },
      }),
    },
  };
})();

export const resultSchema: SchemaObject = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  definitions: {
    summary: obj({ count, mean: num, min: num, ...Object.fromEntries(PERCENTILES.map(([k]) => [k, num])), max: num }),
  },
  ...result,
  properties: {
    ...result.properties,
    // Present only in merged results (src/result/merge.ts), generator threads included.
    merge: obj({ mode: { enum: ['replicates', 'shards'] }, merged_from: { type: 'integer', minimum: 1 }, forced: { type: 'boolean' } }),
    replicates: obj({ count: { type: 'integer', minimum: 2 }, cv: { type: 'object', additionalProperties: num } }),
    // Present only for a time-varying load (src/result/pattern.ts) and an aborted run.
    pattern: patternSchema,
    abort: obj({ reason: { enum: ['error_rate', 'over_saturation'] }, at_s: num, detail: str, fail: { type: 'boolean' } }),
    // Present when the run scraped /metrics and probed the network (src/server); absent in older results.
    server: obj(
      {
        url: str,
        engine: nullable({ enum: ['vllm', 'sglang', 'tgi', 'llamacpp'] }),
        available: { type: 'boolean' },
        scrapes: count,
        interval_s: num,
        summary: obj(
          { prefix_cache_hit_rate: nullable(num), preemptions: nullable(num), preemptions_per_s: nullable(num) },
          { optional: { running: gauge, waiting: gauge, kv_cache_usage: gauge, batch_size: gauge } },
        ),
        ttft_ms: serverQuantiles,
        queue_time_ms: serverQuantiles,
        itl_ms: serverQuantiles,
        timeseries: obj({ interval_s: num, running: gaugeSeries, waiting: gaugeSeries, kv_cache_usage: gaugeSeries }),
      },
      { optional: { note: str } },
    ),
    network: obj({ probes: count, connect_ms: twoQuantiles, rtt_ms: twoQuantiles }, { optional: { tls_ms: twoQuantiles, note: str } }),
    // Absent in results made before loadgate recorded window slices.
    segments: segmentsSchema,
  },
};
