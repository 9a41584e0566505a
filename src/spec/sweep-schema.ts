import { OneOf, Type, type Static, type TProperties } from '../json-schema.js';
import { SpecIssue } from './error.js';
import { Mapping } from './mapping.js';
import { figure, MAX_CONCURRENCY } from './limits.js';

/*
 * The spec's `sweep` and `sizing` sections (loadgate sweep; src/sweep runs the points,
 * src/capacity analyses them). Neither has a default: a spec without them is a plain
 * single-point benchmark and hashes exactly as before.
 *
 *   sweep:                                  # exactly one way of choosing the points:
 *     rates: [5, 10, 20, 40]                #   open-loop rates, req/s
 *     from: 5, to: 40, steps: 8, scale: linear | geometric
 *     auto: true                            #   or `sweep: auto`: light-load probe, then rates × growth until saturation
 *     profile: doubling | guidellm          # auto's ladder: × growth from the probe, or probe, max throughput, then rates between
 *     concurrency: [1, 2, 4, 8]             #   closed-loop concurrency sweep
 *     metric: ttft | e2e                    # the latency S, the knee and the stop rule use (default ttft)
 *     slo_target: 0.99                      # goodput fraction for capacity at SLO (spec.slo defines "good")
 *     bisect: { precision: 0.05, max_points: 4, knee_points: 2, repeat_points: 2 }
 *     stop: { min_achieved_fraction: 0.9, max_p99_multiple: 10 }
 *     gate: { capacity_at_slo: { max_decrease_pct: 10 }, knee: { max_decrease_pct: 10 }, saturation: { max_decrease_pct: 10 } }
 *   sizing:
 *     peak_rate: 120                        # req/s the fleet must carry at peak
 *     batch_slots: 256                      # sequences one replica runs at once (vLLM max_num_seqs), for Little's law
 *     target_utilization: 0.75
 */

/** Defaults of `sweep.auto: true`. Doubling, as in docs/methodology.md ("Sweeps: a doubling ladder"), then `fill` points between the last two. */
export const AUTO_DEFAULTS = { growth: 2, max_points: 10, fill: 3 };

/** The latency a sweep's service floor, knee and stop rule read. */
export const SWEEP_METRICS = ['ttft', 'e2e'] as const;

const { Optional } = Type;
const positive = Type.Number({ exclusiveMinimum: 0, description: 'a number > 0' });
const fraction = (fallback: number) =>
  Type.Number({ exclusiveMinimum: 0, maximum: 1, default: fallback, description: 'a number > 0 and ≤ 1' });
const mapping = <P extends TProperties>(properties: P, description: string) => Mapping(properties, { default: {}, description });
const capacityRule = mapping(
  {
    max_decrease_pct: Type.Number({ minimum: 0, default: 10, description: 'a percentage ≥ 0' }),
    enabled: Type.Boolean({ default: true }),
    warn_only: Type.Boolean({ default: false }),
  },
  'a mapping with max_decrease_pct (and optionally enabled, warn_only)',
);
export type CapacityRule = Static<typeof capacityRule>;

export const sweepSchema = Mapping(
  {
    rates: Optional(Type.Array(positive, { minItems: 1, maxItems: 100, description: 'a list of 1 to 100 rates > 0 (req/s)' })),
    from: Optional(positive),
    to: Optional(positive),
    steps: Optional(Type.Integer({ minimum: 2, maximum: 100, description: 'an integer from 2 to 100' })),
    scale: OneOf(['linear', 'geometric'], { default: 'linear' }),
    /** Its defaults are AUTO_DEFAULTS, filled by autoSettings (ajv fills no defaults inside anyOf). */
    auto: Optional(
      Type.Union(
        [
          Type.Boolean(),
          Type.Object(
            {
              growth: Optional(Type.Number({ exclusiveMinimum: 1, maximum: 10, description: 'a number > 1 and ≤ 10' })),
              max_points: Optional(Type.Integer({ minimum: 2, maximum: 50, description: 'an integer from 2 to 50' })),
              fill: Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'an integer from 0 to 10' })),
            },
            { additionalProperties: false },
          ),
        ],
        { description: 'true or a mapping with growth, max_points, fill' },
      ),
    ),
    concurrency: Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: MAX_CONCURRENCY, description: `an integer from 1 to ${figure(MAX_CONCURRENCY)}` }), {
        minItems: 1,
        maxItems: 100,
        description: `a list of 1 to 100 concurrency levels (integers from 1 to ${figure(MAX_CONCURRENCY)})`,
      }),
    ),
    /**
     * How `auto` chooses its points: doubling grows rates × growth from the concurrency-1 probe;
     * guidellm runs the probe (synchronous), a closed-loop maximum-throughput point, then
     * max_points rates evenly between the two.
     */
    profile: OneOf(['doubling', 'guidellm'], { default: 'doubling' }),
    metric: OneOf(SWEEP_METRICS, { default: 'ttft' }),
    slo_target: fraction(0.99),
    /**
     * max_points: extra points bisecting capacity at SLO; knee_points: extra points bisecting the
     * knee's bracket; repeat_points: windows added to points whose knee verdict was within noise.
     */
    bisect: mapping(
      {
        precision: Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 0.05, description: 'a fraction > 0 and ≤ 1 of the rate' }),
        max_points: Type.Integer({ minimum: 0, maximum: 20, default: 4, description: 'an integer from 0 to 20' }),
        knee_points: Type.Integer({ minimum: 0, maximum: 20, default: 2, description: 'an integer from 0 to 20' }),
        repeat_points: Type.Integer({ minimum: 0, maximum: 10, default: 2, description: 'an integer from 0 to 10' }),
      },
      'a mapping with precision, max_points, knee_points and repeat_points',
    ),
    stop: mapping(
      {
        min_achieved_fraction: fraction(0.9),
        max_p99_multiple: Type.Number({ exclusiveMinimum: 1, default: 10, description: 'a number > 1 (a multiple of S)' }),
      },
      'a mapping with min_achieved_fraction and max_p99_multiple',
    ),
    gate: mapping(
      { capacity_at_slo: capacityRule, knee: capacityRule, saturation: capacityRule },
      'a mapping with capacity_at_slo, knee, saturation',
    ),
  },
  { description: 'auto, or a mapping with rates, from/to/steps, auto or concurrency' },
);
export type SweepSpec = Static<typeof sweepSchema>;

export const sizingSchema = Mapping(
  {
    /** Req/s the fleet must carry at peak. */
    peak_rate: Optional(Type.Number({ exclusiveMinimum: 0, description: 'a rate > 0 (req/s at peak)' })),
    /** Sequences one replica runs at once (vLLM max_num_seqs), for Little's law. */
    batch_slots: Optional(Type.Integer({ minimum: 1, description: 'an integer ≥ 1 (sequences one replica runs at once)' })),
    target_utilization: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.75, description: 'a number > 0 and < 1' }),
  },
  { description: 'a mapping with peak_rate, batch_slots, target_utilization' },
);
export type SizingSpec = Static<typeof sizingSchema>;

/** `sweep: auto` is shorthand for `sweep: { auto: true }`; other values are left for the schema to reject. */
export function expandSweepShorthand(data: unknown): void {
  if (data && typeof data === 'object' && !Array.isArray(data) && (data as Record<string, unknown>).sweep === 'auto')
    (data as Record<string, unknown>).sweep = { auto: true };
}

/** Cross-field rules the schema cannot say in one line: exactly one way of choosing points, and a sane range. */
export function checkSweep(s: SweepSpec): void {
  const ways = [
    s.rates !== undefined && 'rates',
    (s.from !== undefined || s.to !== undefined || s.steps !== undefined) && 'from/to/steps',
    s.auto !== undefined && s.auto !== false && 'auto',
    s.concurrency !== undefined && 'concurrency',
  ].filter((w): w is string => typeof w === 'string');
  if (ways.length === 0)
    throw new SpecIssue(['sweep'], 'chooses no points; expected rates: [..], from/to/steps, auto: true, or concurrency: [..]');
  if (ways.length > 1) throw new SpecIssue(['sweep'], `gives ${ways.join(' and ')}; expected exactly one way of choosing the points`);
  if (s.profile === 'guidellm' && ways[0] !== 'auto')
    throw new SpecIssue(['sweep', 'profile'], `is guidellm with ${ways[0]}; expected auto: true (a listed sweep measures its own points)`);
  if (ways[0] === 'from/to/steps') {
    const missing = (['from', 'to', 'steps'] as const).find((k) => s[k] === undefined);
    if (missing) throw new SpecIssue(['sweep', missing], 'is missing; expected from, to and steps together');
    if (s.to! <= s.from!) throw new SpecIssue(['sweep', 'to'], `is ${s.to}; expected a rate above sweep.from (${s.from})`);
  }
  const list = s.rates ?? s.concurrency;
  if (list) {
    const key = s.rates ? 'rates' : 'concurrency';
    const seen = new Set<number>();
    for (const v of list) {
      if (seen.has(v)) throw new SpecIssue(['sweep', key], `lists ${v} twice; expected each point once`);
      seen.add(v);
    }
  }
}

/** The auto ladder's settings, defaults filled (ajv does not fill defaults inside anyOf). */
export function autoSettings(s: SweepSpec): typeof AUTO_DEFAULTS {
  return { ...AUTO_DEFAULTS, ...(typeof s.auto === 'object' ? s.auto : {}) };
}
