import { Described, Dict, Nullable, OneOf, Type, type Static, type TString } from '../json-schema.js';
import { PHASE_METRICS, type PhaseMetric } from '../metrics/definitions.js';
import { SummarySchema } from '../metrics/histogram.js';
import { DriftOutcomeSchema } from '../metrics/rise.js';

/*
 * The `pattern` section of a result (computed in pattern.ts): its schema, which is its type.
 * The common keys are required; each kind's own block (spike, steps, soak) only its kind has.
 */

const numbers = Type.Array(Type.Number());
const summary = Nullable(SummarySchema);

export const PatternPhaseSchema = Type.Object({
  name: Type.String(),
  from_s: Type.Number(),
  to_s: Type.Number(),
  offered_rate_per_s: Described('λ averaged over the phase (req/s).', Type.Number()),
  scheduled: Type.Number(),
  ok: Type.Number(),
  errors: Type.Number(),
  error_rate: Nullable(Type.Number()),
  achieved_rate_per_s: Described('Successful completions that ended in the phase, per second: what the server delivered.', Type.Number()),
  ttft_ms: summary,
  tpot_ms: summary,
  e2e_ms: summary,
  generator: Described(
    "The generator's own memory when the phase ended (null when not sampled, e.g. a merged result).",
    Nullable(Type.Object({ rss_mb: Type.Number(), heap_mb: Type.Number() })),
  ),
});
export type PatternPhase = Static<typeof PatternPhaseSchema>;

const phaseHistograms = Type.Object(Object.fromEntries(PHASE_METRICS.map((m) => [m, Type.String()])) as Record<PhaseMetric, TString>);

export const PatternSectionSchema = Type.Object({
  kind: OneOf(['ramp', 'spike', 'steps', 'soak']),
  interval_s: Type.Number({ exclusiveMinimum: 0 }),
  sliding_window_s: Type.Number(),
  window: Type.Object({ from_s: Type.Number(), to_s: Type.Number() }),
  phases: Type.Array(PatternPhaseSchema),
  /** Per bucket of interval_s, by intended send time over the whole run (achieved: by end time). */
  series: Type.Object({
    offered_per_s: numbers,
    scheduled: numbers,
    ok: numbers,
    errors: numbers,
    achieved_per_s: numbers,
    ttft_p95_ms: Described(
      'TTFT p95 of the requests scheduled in [bucket start, + sliding_window_s); null with too few samples.',
      Type.Array(Nullable(Type.Number())),
    ),
  }),
  spike: Type.Optional(
    Type.Object({
      at_s: Type.Number(),
      for_s: Type.Number(),
      pre_ttft_p95_ms: Nullable(Type.Number()),
      during: Type.Object({ ttft_ms: summary, errors: Type.Number(), error_rate: Nullable(Type.Number()) }),
      recovery_s: Described(
        "Seconds from the spike's end until TTFT p95 was back within 10 % of its pre-spike level; null: not within the window.",
        Nullable(Type.Number()),
      ),
      rule: Type.String(),
    }),
  ),
  steps: Type.Optional(
    Type.Object({
      floor_ttft_p99_ms: Nullable(Type.Number()),
      first_saturated: Described('Name of the first phase where achieved fell below offered, or null.', Nullable(Type.String())),
      first_departed: Nullable(Type.String()),
      rule: Type.String(),
    }),
  ),
  soak: Type.Optional(
    Type.Object({
      segments: Type.Number(),
      drift: Dict(DriftOutcomeSchema),
      generator: Type.Object({ rss_mb: Type.Array(Nullable(Type.Number())), heap_mb: Type.Array(Nullable(Type.Number())) }),
      rule: Type.String(),
    }),
  ),
  histograms: Described(
    "Encoded HdrHistograms for exact merging: bucket TTFT (empty string: none) and each phase's TTFT/TPOT/E2E.",
    Type.Object({ buckets_ttft: Type.Array(Type.String()), phases: Type.Array(phaseHistograms) }),
  ),
});
export type PatternSection = Static<typeof PatternSectionSchema>;
