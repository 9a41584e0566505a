import { analyzeSweep, nextBisection, nextKneeBisection } from '../capacity/analysis.js';
import { batchSlotsOf, buildSweepDocument, type SweepDocument } from '../capacity/document.js';
import type { PointRole, SweepPoint } from '../capacity/types.js';
import { runReplicatesMerged } from '../run/replicates.js';
import type { Progress } from '../run/run.js';
import { SIM_DEFAULTS } from '../sim/config.js';
import { autoSettings } from '../spec/sweep-schema.js';
import type { ResolvedSpec } from '../spec/types.js';
import { autoRate, fillLoads, plannedLoads } from './plan.js';
import { pointSpec } from './point-spec.js';
import { appendAll, sig4 } from '../numbers.js';

/** What the progress display is told about the point about to run. */
export interface PointInfo {
  /** 1-based. */
  number: number;
  role: PointRole;
  mode: 'open' | 'closed';
  load: number;
  /** Points planned so far (grows as auto, fill and bisection add points). */
  planned: number;
}

export interface SweepRunOptions {
  /** A resolved spec with a sweep section. */
  resolved: ResolvedSpec;
  /** Aborting ends the point in progress (its result is kept, marked interrupted) and the sweep. */
  signal?: AbortSignal;
  workers?: number;
  onPointStart?: (p: PointInfo) => void;
  /** After each point, with the reason it is past saturation (null: not). */
  onPointDone?: (p: PointInfo, point: SweepPoint, saturatedBecause: string | null) => void;
  onProgress?: (p: Progress) => void;
}

/**
 * Runs a sweep point by point — each a full measurement by the single-point engine (runReplicatesMerged:
 * target up, warmup, steady window, cooldown, drain, validity) at its own load — and assembles the
 * sweep document. Stepping stops at the first point past saturation (analysis.ts pastSaturation), so
 * a dead server is not hammered; `auto` grows its ladder from a light-load probe and fills in below
 * saturation; capacity at SLO, then the knee, are bisected. An interrupt keeps every point measured so far.
 */
export async function runSweep(o: SweepRunOptions): Promise<SweepDocument> {
  const { resolved } = o;
  const spec = resolved.spec;
  const s = spec.sweep!;
  const batchSlots = batchSlotsOf(spec, SIM_DEFAULTS.max_num_seqs);
  const points: SweepPoint[] = [];
  const skipped: number[] = [];
  let planned = 0;
  let stoppedBecause = '';
  const aborted = () => o.signal?.aborted === true;
  const options = { metric: s.metric, sloTarget: s.slo_target, stop: s.stop, batchSlots, precision: s.bisect.precision };
  const analysis = () => analyzeSweep(points, options);

  /** Measures one point; returns why it is past saturation, or null. */
  const measure = async (role: PointRole, mode: 'open' | 'closed', load: number): Promise<string | null> => {
    const info: PointInfo = { number: points.length + 1, role, mode, load, planned: Math.max(planned, points.length + 1) };
    o.onPointStart?.(info);
    const r = pointSpec(resolved, mode === 'open' ? { mode, rate: load } : { mode, concurrency: load });
    const result = await runReplicatesMerged(
      { resolved: r, signal: o.signal, onProgress: o.onProgress, workers: o.workers },
      spec.load.replicates,
    );
    const point: SweepPoint = {
      role,
      mode,
      rate_per_s: mode === 'open' ? load : null,
      concurrency: mode === 'closed' ? load : null,
      result,
    };
    points.push(point);
    const why = role === 'probe' ? null : analysis().points[points.length - 1].saturated_because;
    o.onPointDone?.(info, point, why);
    return why;
  };
  const describe = (mode: 'open' | 'closed', load: number) => (mode === 'open' ? `${sig4(load)} req/s` : `concurrency ${load}`);

  const mode: 'open' | 'closed' = s.concurrency ? 'closed' : 'open';
  if (s.auto) {
    const auto = autoSettings(s);
    planned = 1 + auto.max_points;
    await measure('probe', 'closed', 1);
    const x1 = points[0].result.throughput.requests_per_s;
    if (aborted()) stoppedBecause = 'interrupted';
    else if (!(x1 > 0)) stoppedBecause = 'the concurrency-1 probe completed no request: nothing to grow a ladder from';
    else {
      let below = autoRate(x1, auto.growth, -1);
      for (let k = 0; k < auto.max_points && !aborted(); k++) {
        const rate = autoRate(x1, auto.growth, k);
        const why = await measure('step', 'open', rate);
        if (why) {
          stoppedBecause = `${describe('open', rate)} is past saturation: ${why}`;
          planned = points.length + auto.fill;
          for (const f of fillLoads(below, rate, auto.fill)) if (!aborted()) await measure('fill', 'open', f);
          break;
        }
        below = rate;
      }
      stoppedBecause ||= aborted()
        ? 'interrupted'
        : `no saturation within ${auto.max_points} steps (raise sweep.auto.max_points or growth)`;
    }
  } else {
    const loads = plannedLoads(s);
    planned = loads.length;
    for (let i = 0; i < loads.length; i++) {
      if (aborted()) {
        appendAll(skipped, loads.slice(i));
        stoppedBecause = 'interrupted';
        break;
      }
      const why = await measure('step', mode, loads[i]);
      if (why) {
        appendAll(skipped, loads.slice(i + 1));
        stoppedBecause = `${describe(mode, loads[i])} is past saturation: ${why}${skipped.length ? `; not measured: ${skipped.map(sig4).join(', ')}` : ''}`;
        break;
      }
    }
    stoppedBecause ||= 'every planned point was measured';
  }

  for (let i = 0; i < s.bisect.max_points && !aborted(); i++) {
    const next = nextBisection(points, s.slo_target, s.bisect.precision);
    if (next === null) break;
    planned = Math.max(planned, points.length + 1);
    await measure('bisect', mode, next);
  }
  for (let i = 0; i < s.bisect.knee_points && !aborted(); i++) {
    const next = nextKneeBisection(points, options);
    if (next === null) break;
    planned = Math.max(planned, points.length + 1);
    await measure('knee', mode, next);
  }
  const interrupted = aborted();
  if (interrupted && !stoppedBecause.startsWith('interrupted')) stoppedBecause = `interrupted (${stoppedBecause})`;
  return buildSweepDocument({
    spec,
    specHash: resolved.hash,
    points,
    interrupted,
    stoppedBecause,
    skippedLoads: skipped,
    batchSlots,
  });
}
