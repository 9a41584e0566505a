import { minOf } from '../numbers.js';
import type { Spec } from '../spec/types.js';
import { TOOL_VERSION } from '../version.js';
import { analyzeSweep } from './analysis.js';
import { sizeFleet } from './sizing.js';
import type { SweepDocument } from './schema.js';
import type { SweepPoint } from './types.js';

export const SWEEP_SCHEMA_VERSION = 1;
/** Tells a sweep document from a single result (which has no `kind`). */
export const SWEEP_KIND = 'loadgate-sweep';

export type { SweepDocument } from './schema.js';

/** The engine's batch slots when known: the spec's sizing.batch_slots, else the simulator's max_num_seqs. */
export function batchSlotsOf(spec: Spec, simDefaultSlots: number): number | null {
  if (spec.sizing?.batch_slots !== undefined) return spec.sizing.batch_slots;
  if (spec.target.url !== 'sim') return null;
  const sim = spec.target.sim as { mode?: string; max_num_seqs?: number; slots?: number };
  if (sim.mode === 'paced') return sim.slots ?? null;
  if (sim.mode === 'fast') return null;
  return sim.max_num_seqs ?? simDefaultSlots;
}

export const labelOf = (mode: 'open' | 'closed') => (mode === 'open' ? 'open-loop rate sweep' : 'closed-loop concurrency sweep');

/**
 * The network round trip t_RTT of S = W_uncontended − t_RTT: the least of the points' probe
 * medians (network.rtt_ms.p50), null when none carries one. Every point probes the same target
 * before its load, so each median estimates the same round trip, and noise only lengthens one:
 * a probe that waited for a core on a busy machine reads late, never early. Taking the least
 * keeps such a probe from cutting S below the engine's own floor (a 21 ms TTFT less an 11 ms
 * "round trip" on loopback made a knee limit of 3 S = 31 ms that no point could meet).
 */
export function rttOf(points: SweepPoint[]): number | null {
  const medians = points.flatMap((p) => p.result.network?.rtt_ms?.p50 ?? []);
  return medians.length > 0 ? minOf(medians) : null;
}

/** Assembles the sweep document: one function, so the CLI, the Action and tests build it alike. */
export function buildSweepDocument(o: {
  spec: Spec;
  specHash: string;
  points: SweepPoint[];
  interrupted: boolean;
  stoppedBecause: string;
  skippedLoads: number[];
  batchSlots: number | null;
  rttMs?: number | null;
}): SweepDocument {
  const sweep = o.spec.sweep!;
  const analysis = analyzeSweep(o.points, {
    metric: sweep.metric,
    sloTarget: sweep.slo_target,
    stop: sweep.stop,
    batchSlots: o.batchSlots,
    rttMs: o.rttMs ?? rttOf(o.points),
    precision: sweep.bisect.precision,
  });
  const first = o.points[0]?.result;
  return {
    schema_version: SWEEP_SCHEMA_VERSION,
    kind: SWEEP_KIND,
    tool: { name: 'loadgate', version: TOOL_VERSION },
    created_at: new Date().toISOString(),
    label: labelOf(analysis.mode),
    spec: o.spec,
    spec_hash: o.specHash,
    target: first?.target ?? {
      url: o.spec.target.url,
      api: o.spec.target.api,
      model: o.spec.target.model,
      simulator: o.spec.target.url === 'sim',
    },
    interrupted: o.interrupted,
    stopped_because: o.stoppedBecause,
    skipped_loads: o.skippedLoads,
    points: o.points,
    analysis,
    sizing: sizeFleet(analysis, o.spec.sizing),
  };
}
