import type { ValidityCheck } from './types.js';

/**
 * "Did the treatment happen?" A run whose generator fell behind, whose server was not
 * offered the intended load, or which has too few samples cannot support a verdict.
 */
export const VALIDITY_THRESHOLDS = {
  minAchievedFraction: 0.95,
  maxScheduleLagP99Ms: 5,
  maxEventLoopDelayP99Ms: 20,
  minSamplesForP99: 100,
  littlesLawTolerance: 0.25,
};

export interface ValidityInput {
  mode: 'open' | 'closed';
  offeredRate: number;
  achievedRate: number;
  scheduleLagP99Ms: number | null;
  eventLoopDelayP99Ms: number;
  okSamples: number;
  littlesRatio: number | null;
  interrupted: boolean;
}

export function validityChecks(v: ValidityInput, t = VALIDITY_THRESHOLDS): ValidityCheck[] {
  const checks: ValidityCheck[] = [];
  const add = (name: string, ok: boolean, message: string) => checks.push({ name, ok, message });
  add('completed', !v.interrupted, v.interrupted ? 'the run was interrupted before the window ended' : 'the run completed its schedule');
  if (v.mode === 'open') {
    const frac = v.offeredRate > 0 ? v.achievedRate / v.offeredRate : 0;
    add('achieved_rate', frac >= t.minAchievedFraction, `achieved ${v.achievedRate.toFixed(2)} req/s of ${v.offeredRate.toFixed(2)} offered (${(frac * 100).toFixed(1)} %; needs ≥ ${t.minAchievedFraction * 100} %)`);
    const lag = v.scheduleLagP99Ms;
    add('schedule_lag', lag !== null && lag <= t.maxScheduleLagP99Ms, lag === null ? 'no request was sent in the window' : `schedule lag p99 ${lag.toFixed(3)} ms (needs ≤ ${t.maxScheduleLagP99Ms} ms): ${lag <= t.maxScheduleLagP99Ms ? 'the generator kept its schedule' : 'the load generator was the bottleneck'}`);
  }
  add('event_loop_delay', v.eventLoopDelayP99Ms <= t.maxEventLoopDelayP99Ms, `generator event-loop delay p99 ${v.eventLoopDelayP99Ms.toFixed(2)} ms (needs ≤ ${t.maxEventLoopDelayP99Ms} ms)`);
  add('samples', v.okSamples >= t.minSamplesForP99, `${v.okSamples} successful requests in the window (p99 needs ≥ ${t.minSamplesForP99})`);
  if (v.littlesRatio !== null) {
    const ok = Math.abs(v.littlesRatio - 1) <= t.littlesLawTolerance;
    add('littles_law', ok, `mean in-flight / (achieved rate × mean time in system) = ${v.littlesRatio.toFixed(2)} (needs 1 ± ${t.littlesLawTolerance}): ${ok ? 'the window was steady' : 'the window was not steady'}`);
  }
  return checks;
}
