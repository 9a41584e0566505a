import type { Histogram } from '../metrics/histogram.js';
import type { Spec } from '../spec/types.js';
import type { WorkloadPlan } from '../workload/types.js';
import type { ValidityCheck } from './types.js';

/**
 * The validity checks of conversations and trace replay, beside the generic ones (validity.ts):
 *  - sessions_delivered: the conversations got their turns — of those the run's end did not
 *    cut, at least 95 % answered every turn (a failed turn ends its conversation, so a server
 *    that fails turns is offered shorter contexts than the spec describes);
 *  - context_growth: the prompt grew from turn to turn by what was resent (the replies received
 *    and the new messages), within 10 %, by the server's own count;
 *  - trace_replayed: arrivals kept their offsets (schedule lag p95 ≤ 15 ms) and the trace's
 *    input and output lengths were delivered (window means within 5 %).
 */
const THRESHOLDS = { completedShare: 0.95, growthTolerance: 0.1, traceLagP95Ms: 15, traceLengthTolerance: 0.05 };

type Histograms = Record<'scheduleLag' | 'promptTokens' | 'requestedPromptTokens' | 'outputTokens' | 'requestedOutputTokens', Histogram>;

export function replayChecks(plan: WorkloadPlan | undefined, h: Histograms): ValidityCheck[] {
  if (plan?.sessions) return sessionChecks(plan.sessions);
  if (plan?.trace) return [traceCheck(h)];
  return [];
}

function sessionChecks(s: NonNullable<WorkloadPlan['sessions']>): ValidityCheck[] {
  const eligible = s.started - s.cut_by_run_end;
  const share = eligible > 0 ? s.completed / eligible : 0;
  const delivered: ValidityCheck = {
    name: 'sessions_delivered',
    ok: eligible > 0 && share >= THRESHOLDS.completedShare,
    message: `${s.completed} of ${eligible} conversations got all their turns (${pct(share)}; needs ≥ ${pct(THRESHOLDS.completedShare)}); ${s.ended_by_failure} ended by a failed turn, ${s.cut_by_run_end} more cut by the run's end`,
  };
  const g = s.context_growth;
  const d = g && g.requested > 0 ? g.delivered / g.requested - 1 : null;
  const growth: ValidityCheck = {
    name: 'context_growth',
    ok: d === null || Math.abs(d) <= THRESHOLDS.growthTolerance,
    message:
      g === null || d === null
        ? 'context growth not measured (fewer than two turns with the server’s prompt counts)'
        : `the prompt grew ${g.delivered.toFixed(1)} tokens over the turns by the server’s count vs ${g.requested.toFixed(1)} resent (${signed(d)}; needs within ${pct(THRESHOLDS.growthTolerance)})`,
  };
  return [delivered, growth];
}

function traceCheck(h: Histograms): ValidityCheck {
  const lag = h.scheduleLag.totalCount > 0 ? h.scheduleLag.getValueAtPercentile(95) / 1000 : null;
  const rel = (a: Histogram, b: Histogram) => (a.totalCount > 0 && b.totalCount > 0 && b.mean > 0 ? a.mean / b.mean - 1 : null);
  const input = rel(h.promptTokens, h.requestedPromptTokens);
  const output = rel(h.outputTokens, h.requestedOutputTokens);
  const within = (x: number | null) => x !== null && Math.abs(x) <= THRESHOLDS.traceLengthTolerance;
  const ok = lag !== null && lag <= THRESHOLDS.traceLagP95Ms && within(input) && within(output);
  const show = (x: number | null) => (x === null ? 'not measured' : signed(x));
  return {
    name: 'trace_replayed',
    ok,
    message: `arrivals sent ${lag === null ? 'never' : `p95 ${lag.toFixed(2)} ms`} after their trace offsets (needs ≤ ${THRESHOLDS.traceLagP95Ms} ms); delivered vs trace lengths: input ${show(input)}, output ${show(output)} (needs within ${pct(THRESHOLDS.traceLengthTolerance)})`,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;

/** The load's label when conversations or a trace set it: sessions count conversations, a trace its own arrivals. */
export function replayLoadLabel(spec: Pick<Spec, 'load' | 'workload'>): string | null {
  const { trace, sessions } = spec.workload;
  if (trace) return `trace replay of ${trace.file} (${trace.format}, speedup ${trace.speedup})`;
  if (sessions) return `open-loop ${spec.load.arrival} at ${spec.load.rate} sessions/s (multi-turn conversations)`;
  return null;
}
