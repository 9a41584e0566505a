import type { Result } from '../result/types.js';
import type { GeneratorLimits } from '../spec/generator-limits.js';
import { num } from '../numbers.js';
import type { GateSpec } from '../spec/gate-schema.js';
import type { CheckOutcome } from './types.js';

/*
 * What a failed validity check does to the verdict. Three kinds of check:
 * - the generator's timing precision (schedule lag, event-loop delay, generator CPU, pool wait):
 *   by default advisory, since each latency rule is judged against the generator's own error
 *   bound instead (timing-validity.ts); when the gate sets the limit explicitly
 *   (gate.validity.*), the limit applies as it always did — to every rule judged on
 *   measurements, never to the rules judged on error counts, which no timing can move;
 * - what the server did (too few samples, an unsteady window): leaves the verdict undecided;
 * - whether the intended experiment ran at all (interrupted, offered load not achieved, wrong
 *   workload delivered, not comparable): blocks every rule.
 */

const SERVER_SIDE = new Set(['samples', 'littles_law']);

/** Timing checks and the gate.validity key that sets each one's limit. */
const TIMING_LIMITS: Record<string, keyof GeneratorLimits> = {
  schedule_lag: 'max_schedule_lag_p99_ms',
  event_loop_delay: 'max_event_loop_delay_p99_ms',
  generator_cpu: 'max_generator_cpu',
  pool_wait: 'max_pool_wait_p99_ms',
};

export const isTimingCheck = (name: string) => name in TIMING_LIMITS;

/** The figure a timing check judges, read back from a result (null: not measured). */
function timingFigure(r: Result, name: string): number | null {
  switch (name) {
    case 'schedule_lag':
      return r.metrics.schedule_lag_ms?.p99 ?? null;
    case 'event_loop_delay':
      return r.generator.event_loop_delay_ms.p99;
    case 'generator_cpu':
      return r.generator.window_cpu?.busy ?? null;
    default:
      return r.generator.pool_wait_ms?.p99 ?? null;
  }
}

/**
 * A run's validity checks with their effect. A timing check the gate sets explicitly is judged
 * again against the gate's own limit (compare --spec may set another than the run had).
 */
export function runChecks(r: Result, scope: 'baseline' | 'current', gate: GateSpec): CheckOutcome[] {
  return r.validity.checks.map((c): CheckOutcome => {
    if (SERVER_SIDE.has(c.name)) return { scope, ...c, effect: 'server' };
    if (c.name === 'merge_inputs' && !c.ok && onlyTimingFailures(c.message)) return { scope, ...c, effect: 'advisory' };
    const key = TIMING_LIMITS[c.name];
    if (key === undefined) return { scope, ...c, effect: 'blocks' };
    const limit = gate.validity[key];
    if (limit === undefined) return { scope, ...c, effect: 'advisory' };
    const value = timingFigure(r, c.name);
    const ok = value === null || value <= limit;
    const shown = key === 'max_generator_cpu' ? (x: number) => `${num(x * 100)} %` : (x: number) => `${num(x)} ms`;
    const message =
      value === null
        ? c.message
        : `${c.name.replace(/_/g, ' ')} ${shown(value)} against the explicit gate.validity.${key} ${shown(limit)}: ${ok ? 'within it' : 'beyond it, so no rule judged on measurements can be trusted'}`;
    return { scope, name: c.name, ok, message, effect: 'measurements' };
  });
}

/**
 * A merge (replicates, shards, threads) fails merge_inputs when an input failed a check. When
 * every such failure is a timing check or a server-side one, the merged run is judged by its own
 * checks of those (sample count, Little's law over the whole) and per-rule timing validity, so
 * the input's failure only informs. merge.ts words it "an input was not valid: result 2 failed
 * schedule_lag; …" (at most three named).
 */
function onlyTimingFailures(message: string): boolean {
  const names = [...message.matchAll(/ failed (\w+)/g)].map((m) => m[1]);
  return message.startsWith('an input was not valid') && names.length > 0 && names.every((n) => isTimingCheck(n) || SERVER_SIDE.has(n));
}

/** One note for the timing checks over their default limits that were left to per-rule validity. */
export function advisoryNote(checks: CheckOutcome[]): string[] {
  const over = checks.filter((c) => !c.ok && c.effect === 'advisory');
  if (over.length === 0) return [];
  const names = [...new Set(over.map((c) => `${c.scope} ${c.name}`))].join(', ');
  return [
    `generator timing over its default limits (${names}): each latency rule was judged against the generator's error bound instead; set gate.validity.* to enforce a limit`,
  ];
}
