import { DEFAULT_GENERATOR_LIMITS, type GeneratorLimits } from '../spec/generator-limits.js';
import type { Spec } from '../spec/types.js';
import type { Result, ValidityCheck } from './types.js';

/**
 * "Did the treatment happen?" A run whose generator fell behind, whose server was not
 * offered the intended load, or which has too few samples cannot support a verdict.
 * The generator's limits are the spec's gate.validity; these are fixed.
 */
const THRESHOLDS = {
  minSamplesForP99: 100,
  littlesLawTolerance: 0.25,
  /** Delivered vs requested mean length, relative; synthetic prompts sized by the target's own token count are held closer. */
  workloadTolerance: 0.1,
  calibratedInputTolerance: 0.05,
};

export interface ValidityInput {
  mode: 'open' | 'closed';
  offeredRate: number;
  achievedRate: number;
  scheduleLagP99Ms: number | null;
  eventLoopDelayP99Ms: number;
  /** Busy share of one core of the (busiest) generator thread over the window; null where unmeasurable; absent for older results. */
  busyCpu?: number | null;
  /** p99 of window requests' wait inside the HTTP pool; null when none was written; absent for older results. */
  poolWaitP99Ms?: number | null;
  okSamples: number;
  littlesRatio: number | null;
  interrupted: boolean;
  /** Absent: no workload_delivered check (e.g. a merge that does not carry the workload section). */
  workload?: DeliveredLengths;
}

/** Mean lengths asked for and received, and how far each may be trusted to match. */
export interface DeliveredLengths {
  input: { requested: number | null; delivered: number | null };
  output: { requested: number | null; delivered: number | null };
  /** Synthetic prompts sized with the target's own token count (calibrate tokenize or probe). */
  inputCalibrated: boolean;
  /** Dataset prompts go out as written; their requested lengths are estimates, so input is shown, not judged. */
  inputVerbatim: boolean;
  /** max_tokens was forced (ignore_eos or min_tokens); with output_control none it is only a cap, so output is not judged. */
  outputForced: boolean;
  /** Successful requests that got fewer output tokens than asked for; null when not counted. */
  shortRequests: number | null;
}

/** The workload check's input from a result's own sections, so a merged result can be judged the same way. */
export function deliveredLengths(spec: Spec, w: Result['workload']): DeliveredLengths {
  const source = w.plan?.source ?? (spec.workload.dataset ? 'dataset' : 'synthetic');
  return {
    input: { requested: w.input_tokens.requested?.mean ?? null, delivered: w.input_tokens.delivered?.mean ?? null },
    output: { requested: w.output_tokens.requested?.mean ?? null, delivered: w.output_tokens.delivered?.mean ?? null },
    inputCalibrated: source === 'synthetic' && w.plan !== undefined && w.plan.calibration.method !== 'off',
    inputVerbatim: source === 'dataset',
    outputForced: spec.workload.output_control !== 'none',
    shortRequests: w.output_tokens.shortfall?.requests ?? null,
  };
}

/** The generator limits a spec sets, with the defaults for a spec written before they existed. */
export function generatorLimits(spec: Spec): GeneratorLimits {
  return { ...DEFAULT_GENERATOR_LIMITS, ...spec.gate?.validity };
}

/** A limit as a percentage, without float noise (0.57 × 100 is 56.99999999999999). */
const percent = (fraction: number) => Number((fraction * 100).toFixed(2));

export function validityChecks(v: ValidityInput, limits: GeneratorLimits, t = THRESHOLDS): ValidityCheck[] {
  const checks: ValidityCheck[] = [];
  const add = (name: string, ok: boolean, message: string) => checks.push({ name, ok, message });
  add('completed', !v.interrupted, v.interrupted ? 'the run was interrupted before the window ended' : 'the run completed its schedule');
  if (v.mode === 'open') {
    const frac = v.offeredRate > 0 ? v.achievedRate / v.offeredRate : 0;
    const minFrac = limits.min_achieved_fraction;
    add(
      'achieved_rate',
      frac >= minFrac,
      `achieved ${v.achievedRate.toFixed(2)} req/s of ${v.offeredRate.toFixed(2)} offered (${(frac * 100).toFixed(1)} %; needs ≥ ${percent(minFrac)} %)`,
    );
    const lag = v.scheduleLagP99Ms;
    const maxLag = limits.max_schedule_lag_p99_ms;
    add(
      'schedule_lag',
      lag !== null && lag <= maxLag,
      lag === null
        ? 'no request was sent in the window'
        : `schedule lag p99 ${lag.toFixed(3)} ms (needs ≤ ${maxLag} ms, gate.validity.max_schedule_lag_p99_ms): ${lag <= maxLag ? 'the generator kept its schedule' : 'the load generator was the bottleneck'}`,
    );
  }
  const maxDelay = limits.max_event_loop_delay_p99_ms;
  add(
    'event_loop_delay',
    v.eventLoopDelayP99Ms <= maxDelay,
    `generator event-loop delay p99 ${v.eventLoopDelayP99Ms.toFixed(2)} ms (needs ≤ ${maxDelay} ms, gate.validity.max_event_loop_delay_p99_ms)`,
  );
  if (v.busyCpu !== undefined) {
    const busy = v.busyCpu;
    const maxBusy = limits.max_generator_cpu;
    add(
      'generator_cpu',
      busy === null || busy <= maxBusy,
      busy === null
        ? 'generator CPU not measured: this platform gives no per-thread CPU time'
        : `generator thread busy ${(busy * 100).toFixed(0)} % of a core over the window, its idle spin before arrivals left out (needs ≤ ${percent(maxBusy)} %, gate.validity.max_generator_cpu)${busy <= maxBusy ? '' : ': the load generator was the bottleneck (add --workers or machines)'}`,
    );
  }
  if (v.poolWaitP99Ms !== undefined) {
    const wait = v.poolWaitP99Ms;
    const maxWait = limits.max_pool_wait_p99_ms;
    add(
      'pool_wait',
      wait === null || wait <= maxWait,
      wait === null
        ? 'no request was written in the window'
        : `requests waited p99 ${wait.toFixed(3)} ms in the HTTP pool before being written, connecting included (needs ≤ ${maxWait} ms, gate.validity.max_pool_wait_p99_ms)${wait <= maxWait ? '' : ': latency from the schedule includes time the server never saw the request'}`,
    );
  }
  add('samples', v.okSamples >= t.minSamplesForP99, `${v.okSamples} successful requests in the window (p99 needs ≥ ${t.minSamplesForP99})`);
  if (v.littlesRatio !== null) {
    const ok = Math.abs(v.littlesRatio - 1) <= t.littlesLawTolerance;
    add(
      'littles_law',
      ok,
      `mean in-flight / (achieved rate × mean time in system) = ${v.littlesRatio.toFixed(2)} (needs 1 ± ${t.littlesLawTolerance}): ${ok ? 'the window was steady' : 'the window was not steady'}`,
    );
  }
  if (v.workload) {
    const { ok, message } = workloadDelivered(v.workload, t);
    add('workload_delivered', ok, message);
  }
  return checks;
}

/**
 * Did the server get the workload the spec asked for? A run whose prompts or outputs were
 * much shorter (or longer) than specified measured a different workload, and comparing it
 * with a baseline would blame the change under test for the difference.
 */
function workloadDelivered(w: DeliveredLengths, t: typeof THRESHOLDS): { ok: boolean; message: string } {
  const judge = (what: string, m: { requested: number | null; delivered: number | null }, tolerance: number) => {
    if (m.requested === null || m.delivered === null || m.requested === 0) return { ok: true, text: `${what}: not measured` };
    const d = m.delivered / m.requested - 1;
    const ok = Math.abs(d) <= tolerance;
    return {
      ok,
      text: `${what} mean ${m.delivered.toFixed(1)} tokens delivered vs ${m.requested.toFixed(1)} requested (${d >= 0 ? '+' : ''}${(d * 100).toFixed(1)} %; needs within ${tolerance * 100} %)`,
    };
  };
  const shown = (what: string, m: { requested: number | null; delivered: number | null }, why: string) => ({
    ok: true,
    text: `${what} mean ${m.delivered?.toFixed(1) ?? 'unmeasured'} tokens delivered vs ${m.requested?.toFixed(1) ?? 'no'} requested, not judged: ${why}`,
  });
  const input = w.inputVerbatim
    ? shown('input', w.input, 'dataset prompts are sent as written and their requested lengths are estimates')
    : judge('input', w.input, w.inputCalibrated ? t.calibratedInputTolerance : t.workloadTolerance);
  const output = w.outputForced
    ? judge('output', w.output, t.workloadTolerance)
    : shown('output', w.output, 'output_control is none, so max_tokens is only a cap');
  const hints = [
    !input.ok && !w.inputCalibrated ? "prompts were not sized with the target's tokenizer (see workload.calibrate)" : '',
    !output.ok && w.shortRequests
      ? `${w.shortRequests} requests got fewer output tokens than max_tokens: the server stopped early (does it honour ignore_eos or min_tokens? see workload.output_control)`
      : '',
  ].filter(Boolean);
  return { ok: input.ok && output.ok, message: [input.text, output.text, ...hints].join('; ') };
}
