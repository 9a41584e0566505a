import { KeepAliveFactsSchema } from '../client/keep-alive.js';
import { OUTCOMES, type Outcome } from '../client/types.js';
import { Count, Dict, Nullable, OneOf, Type, type TSchema } from '../json-schema.js';
import type { MetricName } from '../metrics/definitions.js';
import { DelayTailSchema, SummarySchema, type Summary } from '../metrics/histogram.js';
import { WindowCpuSchema } from '../metrics/window-cpu.js';
import { NetworkSectionSchema, ServerSectionSchema } from '../server/types.js';
import type { Spec } from '../spec/types.js';
import { WorkloadPlanSchema } from '../workload/types.js';
import { PatternSectionSchema } from './pattern-section.js';
import { SegmentsSchema } from './segments.js';
import { TimestampErrorSchema } from './timestamp-error.js';
import { METRIC_HISTOGRAM, RESULT_SCHEMA_VERSION } from './types.js';

/*
 * result.json, schema_version 1: this schema is its type (types.ts takes `Static` of it), so
 * what loadgate writes and what it accepts back are one description. Objects accept extra
 * keys: a field added without a schema_version bump (which is reserved for changes old readers
 * would misread) must not make older loadgates reject new files. A field added later is
 * optional, so results written before it still load. Each `description` is the meaning
 * column of docs/results.md.
 */

const str = Type.String();
const num = Type.Number();
const bool = Type.Boolean();
const numbers = Type.Array(num);
const about = (description: string) => ({ description });
/** Optional, with its meaning. */
const later = <T extends TSchema>(schema: T, description: string) => Type.Optional({ ...schema, description });

/** Every summary of the top-level sections refers to the one definition (docs/results.md#summary). */
const summary = Nullable(Type.Unsafe<Summary>({ $ref: '#/definitions/summary' }));

/** Classes added later are optional here, so results written before them still load; readResult fills them with 0. */
const LATER_OUTCOMES: readonly Outcome[] = ['cancelled'];
const byClass = Type.Unsafe<Record<Outcome, number>>({
  description: 'Results made before the `cancelled` class existed lack that key (read it as 0).',
  type: 'object',
  required: OUTCOMES.filter((o) => !LATER_OUTCOMES.includes(o)),
  properties: Object.fromEntries(OUTCOMES.map((o) => [o, Count()])),
});

/**
 * The spec as it was when the run was made. Held to the keys every reader of a result uses,
 * not to this version's spec schema: a baseline's spec predates keys added since, and carries
 * the defaults of its own version. Typed as the spec.
 */
const spec = Type.Unsafe<Spec>(
  Type.Object({
    name: str,
    target: Type.Object({ url: str, api: str, model: str }),
    workload: Type.Object({}),
    load: Type.Object({ mode: OneOf(['open', 'closed']), rate: num, concurrency: num }),
    slo: Type.Object({ ttft_ms: num, tpot_ms: num, e2e_ms: num }),
  }),
);

export const ValidityCheckSchema = Type.Object({
  name: str,
  ok: bool,
  message: Type.String(about('What was measured and what it was held against, in words a reader can act on.')),
});

/**
 * replicates: the same benchmark run several times one after another. Windows add up;
 *   rates are totals over the total window time (a window-weighted mean).
 * shards: parallel generators, each at rate/N, over the same wall-clock window. The window
 *   is shared; rates and counts add.
 */
export const MERGE_MODES = ['replicates', 'shards'] as const;

export const MergeInfoSchema = Type.Object(
  {
    mode: OneOf(MERGE_MODES),
    merged_from: Type.Integer({ minimum: 1, ...about('Number of original runs inside (a merged input counts as the runs it holds).') }),
    forced: Type.Boolean(about("Merged with --force although the inputs' spec hashes or models differ.")),
  },
  about('Present when the result combines several (src/result/merge.ts), generator threads included.'),
);

/** Run-to-run spread of replicates: coefficient of variation (sd / mean) of key metrics across the inputs. */
export const ReplicateSpreadSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 2 }),
    cv: Dict(num, about('Keys like "ttft_ms.p95", "throughput.output_tokens_per_s".')),
  },
  about('Present when the result merges two or more replicates.'),
);

/** Why and when load.abort stopped a run; its gate verdict is inconclusive, or fail with load.abort.fail. */
export const AbortInfoSchema = Type.Object(
  {
    reason: OneOf(['error_rate', 'over_saturation']),
    at_s: Type.Number(about('Seconds from the start of the run (ramp-up and warmup included).')),
    detail: str,
    fail: bool,
  },
  about('Present when load.abort stopped the run early.'),
);

const requests = Type.Object({
  scheduled: Count(about('Every arrival whose time came; each ends in exactly one class.')),
  by_class: byClass,
  not_reached: Count(about('Arrivals of the planned schedule never reached because the run was stopped early.')),
  window: Type.Object({ scheduled: Count(), by_class: byClass }),
  error_samples: Type.Array(Type.Object({ class: OneOf(OUTCOMES), detail: str, count: Count() })),
  reconnects: later(
    Count(),
    'Requests re-sent, once, on a new connection because the server closed the reused kept-alive connection they were written on before any response (it never answered them). Each still ends in one class. Absent in results made before loadgate re-sent them.',
  ),
  keep_alive: later(
    KeepAliveFactsSchema,
    'What the server did with kept-alive connections; `disabled`: the client stopped reusing them. Absent in older results.',
  ),
});

const workload = Type.Object({
  input_tokens: Type.Object(
    { spec: Type.Optional(summary), requested: summary, delivered: summary },
    about(
      "`spec`: the distribution the spec (or dataset) describes; `requested`: what was asked of the window's requests; `delivered`: the server's usage.",
    ),
  ),
  output_tokens: Type.Object({
    spec: Type.Optional(summary),
    requested: summary,
    delivered: summary,
    shortfall: later(
      Type.Object({ requests: num, mean_tokens: Nullable(num) }),
      'Successful window requests that got fewer output tokens than max_tokens asked for, and the mean tokens they lacked.',
    ),
  }),
  token_source: OneOf(
    ['usage', 'chunks', 'mixed', 'none'],
    about("Where output token counts came from: the server's usage, content chunks, or both."),
  ),
  usage_missing: Count(),
  usage_chunk_mismatch: Count(),
  plan: later(WorkloadPlanSchema, 'How prompts and lengths were made (src/workload). Absent in merged results.'),
});

const generator = Type.Object({
  event_loop_delay_ms: DelayTailSchema,
  cpu_s: num,
  cpu_utilization: num,
  heap_mb: Type.Number(about('Memory at the end of the run: flat across run lengths, since nothing is kept per request.')),
  rss_mb: num,
  window_cpu: later(
    Nullable(WindowCpuSchema),
    "The generator thread over the window (the busiest, when several), as shares of one core: busy is its CPU less the dispatcher's idle spin before arrivals. Null where per-thread CPU cannot be read. Absent from results made before loadgate measured it.",
  ),
  pool_wait_ms: later(
    Nullable(DelayTailSchema),
    "Window requests' wait inside the HTTP pool between send and being written (connecting included); null if none was written. Absent in older results.",
  ),
  timestamp_error_ms: later(
    Nullable(TimestampErrorSchema),
    "How far the timestamps can have moved a TTFT or E2E quantile, and how late one chunk's timestamp can be, from the generator's own event loop (src/result/timestamp-error.ts derives both); null when no read was timed in the window. Absent in older results.",
  ),
});

const metrics = Type.Object(
  Object.fromEntries(Object.keys(METRIC_HISTOGRAM).map((m) => [m, summary])) as Record<MetricName, typeof summary>,
);
const slo = Type.Object({ ttft_ms: num, tpot_ms: num, e2e_ms: num });

export const resultSchema = Type.Object(
  {
    schema_version: Type.Literal(RESULT_SCHEMA_VERSION),
    tool: Type.Object({ name: Type.Literal('loadgate'), version: str }),
    created_at: str,
    run_id: Type.String(about("Prefix of every request's x-request-id, to join server logs with the raw records.")),
    spec,
    spec_hash: str,
    target: Type.Object({ url: str, api: OneOf(['chat', 'completions']), model: str, simulator: bool }),
    environment: Type.Object({ node: str, platform: str, arch: str, cpus: num, cpu_model: str, workers: num }),
    load: Type.Object({
      mode: OneOf(['open', 'closed']),
      label: str,
      arrival: str,
      burstiness: num,
      concurrency: Nullable(num),
      offered_rate_per_s: num,
      achieved_rate_per_s: num,
      warmup_s: num,
      window_s: num,
      cooldown_s: num,
      interrupted: bool,
    }),
    requests,
    metrics,
    throughput: Type.Object({ output_tokens_per_s: num, total_tokens_per_s: num, requests_per_s: num }),
    goodput: Type.Object({ slo, requests: Count(), rate_per_s: num, fraction: Nullable(num) }),
    rates: Type.Object({ http_5xx: num, http_429: num, errors: num }),
    workload,
    generator,
    littles_law: Type.Object({
      mean_in_flight: num,
      predicted_in_flight: num,
      ratio: Nullable(num),
      peak_in_flight: later(
        Count(),
        'Most requests in flight at once during the window. Absent in results made before loadgate measured it.',
      ),
    }),
    validity: Type.Object({ valid: bool, checks: Type.Array(ValidityCheckSchema) }),
    timeseries: Type.Object(
      { interval_s: Type.Number({ exclusiveMinimum: 0 }), sent: numbers, ok: numbers, errors: numbers, output_tokens: numbers },
      about('Counts per interval (1 s, doubled as often as needed to keep at most 900 points).'),
    ),
    histograms: Dict(
      str,
      about('HdrHistograms (compressed base64, values in µs; token counts unitless), for exact merging and comparison.'),
    ),
    definitions: Dict(str),
    merge: Type.Optional(MergeInfoSchema),
    replicates: Type.Optional(ReplicateSpreadSchema),
    pattern: later(
      PatternSectionSchema,
      'What a ramp, spike, steps or soak load showed over time (src/result/pattern.ts). Absent for a steady rate.',
    ),
    abort: Type.Optional(AbortInfoSchema),
    server: later(
      ServerSectionSchema,
      "The server's own view of the window from its /metrics (src/server); absent when turned off or in older results.",
    ),
    network: later(
      NetworkSectionSchema,
      'Connect time, TLS handshake and request round trip, probed before the warmup; absent in older results.',
    ),
    segments: later(
      SegmentsSchema,
      "Per-slice percentiles of the window (src/result/segments.ts), for the gate's drift estimate. Absent in older results.",
    ),
  },
  { $schema: 'http://json-schema.org/draft-07/schema#', definitions: { summary: SummarySchema } },
);
