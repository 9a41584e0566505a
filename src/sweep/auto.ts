import { appendAll } from '../numbers.js';
import { analyzeSweep, meetsTarget } from '../capacity/analysis.js';
import { latency } from '../capacity/curve.js';
import { autoSettings } from '../spec/sweep-schema.js';
import { autoRate, fillLoads, interpolatedLoads } from './plan.js';
import { describeLoad, type SweepRun } from './types.js';

/**
 * The first open-loop step counts as already loaded when its knee verdict is not a clear pass, or
 * its metric's p50 is above this multiple of S: requests already wait for one another there. It
 * also counts when its goodput fraction misses the SLO target: capacity at SLO then lies below X₁
 * and needs a passing point beneath it to be bracketed at all.
 */
export const LOADED_P50_MULTIPLE = 1.5;
/** The guidellm profile's throughput point when the engine's batch slots are unknown: this many at once. */
export const THROUGHPUT_CONCURRENCY = 32;

/**
 * Whether the sweep's first open-loop step is already loaded. On an engine whose batching gains
 * little (saturation under ~2× the one-at-a-time rate X₁), the step at X₁ runs at ρ ≈ 50–60 %, so
 * the knee may lie below it: the ladder must then measure below X₁ to bracket it from below.
 */
function firstStepLoaded(run: SweepRun): boolean {
  const a = analyzeSweep(run.points, run.options);
  const first = a.knee.checks?.[0];
  const step = run.points[run.points.length - 1].result;
  const p50 = latency(step, run.options.metric)?.p50 ?? Infinity;
  return (
    first?.verdict !== 'pass' ||
    (a.service_floor_ms !== null && p50 > LOADED_P50_MULTIPLE * a.service_floor_ms) ||
    (step.goodput.fraction !== null && !meetsTarget(step, run.options.sloTarget))
  );
}

/** X₁/4 and X₁/2, lightest first: the knee's lower bracket when the step at X₁ is already loaded. */
async function measureBelow(run: SweepRun, x1: number): Promise<void> {
  run.planned += 2;
  for (const f of [4, 2]) if (!run.aborted()) await run.measure('below', 'open', Math.round((x1 / f) * 1000) / 1000);
}

/**
 * The closed-loop throughput point: twice the batch slots at once (THROUGHPUT_CONCURRENCY when
 * unknown) keeps every slot busy with a queue behind, so its completions are the ceiling X_max.
 */
async function measureThroughput(run: SweepRun): Promise<number> {
  const c = run.options.batchSlots !== null ? 2 * run.options.batchSlots : THROUGHPUT_CONCURRENCY;
  await run.measure('throughput', 'closed', c);
  return c;
}

/**
 * When stepping stopped on the tail (p99 > 10 × S) before any point fell short of its offer, no
 * point shows the plateau; one closed-loop throughput point measures it without overloading.
 */
async function measureCeiling(run: SweepRun): Promise<void> {
  if (run.aborted() || analyzeSweep(run.points, run.options).saturation.reached) return;
  run.planned++;
  await measureThroughput(run);
}

/**
 * Doubling: rates X₁·growth^k until one is past saturation, `fill` points below it (and the
 * throughput point when none fell short of its offer), and points below X₁ when X₁ is already loaded.
 */
async function runDoubling(run: SweepRun, x1: number): Promise<string> {
  const auto = autoSettings(run.o.resolved.spec.sweep!);
  let below = autoRate(x1, auto.growth, -1);
  for (let k = 0; k < auto.max_points && !run.aborted(); k++) {
    const rate = autoRate(x1, auto.growth, k);
    const why = await run.measure('step', 'open', rate);
    if (k === 0 && firstStepLoaded(run)) {
      await measureBelow(run, x1);
      below = Math.round((x1 / 2) * 1000) / 1000;
    }
    if (why) {
      run.planned = run.points.length + auto.fill;
      for (const f of fillLoads(below, rate, auto.fill)) if (!run.aborted()) await run.measure('fill', 'open', f);
      await measureCeiling(run);
      return `${describeLoad('open', rate)} is past saturation: ${why}`;
    }
    below = rate;
  }
  return run.aborted() ? 'interrupted' : `no saturation within ${auto.max_points} steps (raise sweep.auto.max_points or growth)`;
}

/**
 * GuideLLM-style: after the synchronous probe, a closed-loop point at twice the batch slots (all
 * the engine can hold, and a queue) measures the maximum throughput X_t; then max_points open-loop
 * rates evenly between X₁ and X_t, stopping at the first past saturation.
 */
async function runGuidellm(run: SweepRun, x1: number): Promise<string> {
  const auto = autoSettings(run.o.resolved.spec.sweep!);
  const c = await measureThroughput(run);
  const xt = run.points[run.points.length - 1].result.throughput.requests_per_s;
  if (run.aborted()) return 'interrupted';
  if (!(xt > x1))
    return `the throughput point (concurrency ${c}) completed ${xt} req/s, no more than the probe's ${x1}: nothing to interpolate`;
  const rates = interpolatedLoads(x1, xt, auto.max_points);
  run.planned = run.points.length + rates.length;
  for (let i = 0; i < rates.length && !run.aborted(); i++) {
    const why = await run.measure('step', 'open', rates[i]);
    if (i === 0 && firstStepLoaded(run)) await measureBelow(run, x1);
    if (why) {
      appendAll(run.skipped, rates.slice(i + 1));
      return `${describeLoad('open', rates[i])} is past saturation: ${why}`;
    }
  }
  return run.aborted() ? 'interrupted' : `every interpolated rate up to the throughput point's ${xt} req/s was measured`;
}

/** `auto`: the concurrency-1 probe, then the profile's ladder from its throughput X₁ (one request at a time, X₁ = 1/W₀). */
export async function runAuto(run: SweepRun): Promise<string> {
  const auto = autoSettings(run.o.resolved.spec.sweep!);
  run.planned = 1 + auto.max_points;
  await run.measure('probe', 'closed', 1);
  const x1 = run.points[0].result.throughput.requests_per_s;
  if (run.aborted()) return 'interrupted';
  if (!(x1 > 0)) return 'the concurrency-1 probe completed no request: nothing to grow a ladder from';
  return run.o.resolved.spec.sweep!.profile === 'guidellm' ? runGuidellm(run, x1) : runDoubling(run, x1);
}
