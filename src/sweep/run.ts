import { analyzeSweep, nextBisection, nextKneeBisection } from '../capacity/analysis.js';
import { batchSlotsOf, buildSweepDocument, rttOf, type SweepDocument } from '../capacity/document.js';
import type { PointRole, SweepPoint } from '../capacity/types.js';
import { mergeResults } from '../result/merge.js';
import { replicateSpec, runReplicatesMerged } from '../run/replicates.js';
import { SIM_DEFAULTS } from '../sim/config.js';
import type { ResolvedSpec } from '../spec/types.js';
import { plannedLoads } from './plan.js';
import { pointSpec } from './point-spec.js';
import { runAuto } from './auto.js';
import { describeLoad, type PointInfo, type SweepRun, type SweepRunOptions } from './types.js';
import { appendAll, sig4 } from '../numbers.js';

export type { PointInfo, SweepRun, SweepRunOptions } from './types.js';

/** The single-point spec of a point, or of its `repeat`-th extra window (a fresh seed, as a replicate). */
function specOf(resolved: ResolvedSpec, mode: 'open' | 'closed', load: number, repeat = 0): ResolvedSpec {
  const r = pointSpec(resolved, mode === 'open' ? { mode, rate: load } : { mode, concurrency: load });
  return repeat === 0 ? r : replicateSpec(r, resolved.spec.load.replicates + repeat - 1);
}

function newRun(o: SweepRunOptions): SweepRun {
  const s = o.resolved.spec.sweep!;
  const run: SweepRun = {
    o,
    points: [],
    skipped: [],
    planned: 0,
    options: {
      metric: s.metric,
      sloTarget: s.slo_target,
      stop: s.stop,
      batchSlots: batchSlotsOf(o.resolved.spec, SIM_DEFAULTS.max_num_seqs),
      precision: s.bisect.precision,
    },
    aborted: () => o.signal?.aborted === true,
    measure: async (role, mode, load) => {
      const info: PointInfo = { number: run.points.length + 1, role, mode, load, planned: Math.max(run.planned, run.points.length + 1) };
      o.onPointStart?.(info);
      const result = await runReplicatesMerged(
        { resolved: specOf(o.resolved, mode, load), signal: o.signal, onProgress: o.onProgress, workers: o.workers },
        o.resolved.spec.load.replicates,
      );
      const point: SweepPoint = {
        role,
        mode,
        rate_per_s: mode === 'open' ? load : null,
        concurrency: mode === 'closed' ? load : null,
        result,
      };
      run.points.push(point);
      // As the document will: S less the lightest point's network round trip, so the ladder's choices match its analysis.
      run.options.rttMs = rttOf(run.points);
      const why =
        role === 'probe' || role === 'throughput'
          ? null
          : analyzeSweep(run.points, run.options).points[run.points.length - 1].saturated_because;
      o.onPointDone?.(info, point, why);
      return why;
    },
  };
  return run;
}

/** A listed sweep (rates, from/to/steps, concurrency): every load in turn, stopping at the first past saturation. */
async function runListed(run: SweepRun, mode: 'open' | 'closed'): Promise<string> {
  const loads = plannedLoads(run.o.resolved.spec.sweep!);
  run.planned = loads.length;
  for (let i = 0; i < loads.length; i++) {
    if (run.aborted()) {
      appendAll(run.skipped, loads.slice(i));
      return 'interrupted';
    }
    const why = await run.measure('step', mode, loads[i]);
    if (why) {
      appendAll(run.skipped, loads.slice(i + 1));
      return `${describeLoad(mode, loads[i])} is past saturation: ${why}${run.skipped.length ? `; not measured: ${run.skipped.map(sig4).join(', ')}` : ''}`;
    }
  }
  return 'every planned point was measured';
}

/**
 * A point whose knee verdict was within a rule's noise gets one more window (bounded by
 * bisect.repeat_points in all): the two windows merge as replicates (histograms and counts add),
 * which narrows every noise bound by about √2.
 */
async function repeatAmbiguous(run: SweepRun, budget: number): Promise<number> {
  let used = 0;
  while (used < budget && !run.aborted()) {
    const ambiguous = analyzeSweep(run.points, run.options).knee.ambiguous ?? [];
    const i = ambiguous.find((k) => (run.points[k].windows ?? 1) < 2);
    if (i === undefined) break;
    const p = run.points[i];
    const load = p.mode === 'open' ? p.rate_per_s! : p.concurrency!;
    const info: PointInfo = { number: i + 1, role: p.role, mode: p.mode, load, planned: run.points.length };
    run.o.onPointStart?.(info);
    const extra = await runReplicatesMerged(
      { resolved: specOf(run.o.resolved, p.mode, load, 1), signal: run.o.signal, onProgress: run.o.onProgress, workers: run.o.workers },
      1,
    );
    run.points[i] = { ...p, result: mergeResults([p.result, extra], { mode: 'replicates' }), windows: (p.windows ?? 1) + 1 };
    used++;
    run.o.onPointDone?.(info, run.points[i], analyzeSweep(run.points, run.options).points[i].saturated_because);
  }
  return used;
}

/** After the ladder: bisect capacity at SLO, measure again the points within noise, then bisect the knee. */
async function refine(run: SweepRun, mode: 'open' | 'closed'): Promise<void> {
  const b = run.o.resolved.spec.sweep!.bisect;
  const more = async (role: PointRole, next: () => number | null, budget: number) => {
    for (let i = 0; i < budget && !run.aborted(); i++) {
      const load = next();
      if (load === null) break;
      run.planned = Math.max(run.planned, run.points.length + 1);
      await run.measure(role, mode, load);
    }
  };
  await more('bisect', () => nextBisection(run.points, run.options.sloTarget, b.precision), b.max_points);
  let repeats = b.repeat_points;
  repeats -= await repeatAmbiguous(run, repeats);
  await more('knee', () => nextKneeBisection(run.points, run.options), b.knee_points);
  await repeatAmbiguous(run, repeats);
}

/**
 * Runs a sweep point by point — each a full measurement by the single-point engine (runReplicatesMerged:
 * target up, warmup, steady window, cooldown, drain, validity) at its own load — and assembles the
 * sweep document. Stepping stops at the first point past saturation (analysis.ts pastSaturation), so
 * a dead server is not hammered; `auto` grows its ladder from a light-load probe (auto.ts); capacity
 * at SLO, then the knee, are bisected, and points within a rule's noise measured again. An interrupt
 * keeps every point measured so far.
 */
export async function runSweep(o: SweepRunOptions): Promise<SweepDocument> {
  const spec = o.resolved.spec;
  const s = spec.sweep!;
  const run = newRun(o);
  const mode: 'open' | 'closed' = s.concurrency ? 'closed' : 'open';
  let stoppedBecause = s.auto ? await runAuto(run) : await runListed(run, mode);
  await refine(run, mode);
  const interrupted = run.aborted();
  if (interrupted && !stoppedBecause.startsWith('interrupted')) stoppedBecause = `interrupted (${stoppedBecause})`;
  return buildSweepDocument({
    spec,
    specHash: o.resolved.hash,
    points: run.points,
    interrupted,
    stoppedBecause,
    skippedLoads: run.skipped,
    batchSlots: run.options.batchSlots,
  });
}
