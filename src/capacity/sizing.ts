import type { SizingSpec } from '../spec/sweep-schema.js';
import type { SizingAnswer, SweepAnalysis } from './types.js';
import { round3, sig4 } from '../numbers.js';

/*
 * Fleet sizing from a sweep (docs/methodology.md, "Sizing").
 * Pure: the analysis and the spec's sizing section in, each number with its formula out.
 */

/**
 * - Replicas: each replica should run at ρ ≤ ρ_target (0.75) of its saturation throughput X_max
 *   at peak, keeping 25 % idle capacity for Poisson bursts: c = ⌈λ_peak / (ρ_target · X_max)⌉.
 *   Beside it, the count from capacity at SLO: ⌈λ_peak / λ_SLO⌉ (the larger is the safe choice).
 * - Sequences the KV cache must hold across the fleet, by Little's law: N = λ_peak · W, with W the
 *   mean time in system (E2E) at the operating point; the p99-safe bound N = λ_peak · W_p99 sizes
 *   for bursts of slow requests. Each replica holds N / c.
 * - The operating point: the heaviest measured open-loop point at or below the per-replica rate
 *   λ_peak / c, where each replica will run; the lightest point if none is that light.
 * - Client timeout: max(3 × E2E p90, E2E p99.9) at the operating point — long enough that the
 *   tail a healthy server produces never times out, short enough to shed a stuck request.
 * Null when there is no peak_rate or the sweep found no throughput.
 */
export function sizeFleet(a: SweepAnalysis, sizing: SizingSpec | undefined): SizingAnswer | null {
  const peak = sizing?.peak_rate;
  const xMax = a.saturation.requests_per_s;
  if (peak === undefined || !xMax) return null;
  const rho = sizing?.target_utilization ?? 0.75;
  const replicas = Math.max(1, Math.ceil(peak / (rho * xMax)));
  const perReplica = peak / replicas;
  const curve = a.points.filter((p) => p.mode === a.mode && p.e2e_ms.mean !== null).sort((x, y) => x.requests_per_s - y.requests_per_s);
  if (curve.length === 0) return null;
  const below = curve.filter((p) => p.requests_per_s <= perReplica);
  const op = below.length > 0 ? below[below.length - 1] : curve[0];
  const why =
    below.length > 0
      ? `heaviest measured point with throughput ≤ the per-replica peak ${sig4(perReplica)} req/s`
      : `lightest measured point (none is as light as the per-replica peak ${sig4(perReplica)} req/s)`;
  const wS = op.e2e_ms.mean! / 1000;
  const w99S = (op.e2e_ms.p99 ?? op.e2e_ms.mean!) / 1000;
  const kv = peak * wS;
  const kv99 = peak * w99S;
  const p90 = op.e2e_ms.p90 ?? op.e2e_ms.mean!;
  const p999 = op.e2e_ms.p999 ?? p90;
  const timeout = Math.max(3 * p90, p999);
  const slo = a.capacity_at_slo.rate_per_s;
  const replicasAtSlo = slo ? Math.ceil(peak / slo) : null;
  return {
    peak_rate_per_s: peak,
    target_utilization: rho,
    max_rate_per_s: xMax,
    replicas,
    replicas_formula: `⌈λ_peak / (ρ_target · X_max)⌉ = ⌈${sig4(peak)} / (${rho} · ${sig4(xMax)})⌉ = ${replicas}`,
    replicas_at_slo: replicasAtSlo,
    replicas_at_slo_formula: slo ? `⌈λ_peak / λ_SLO⌉ = ⌈${sig4(peak)} / ${sig4(slo)}⌉ = ${replicasAtSlo}` : null,
    operating_point: { load: op.load, point: op.index, why },
    kv_sequences: Math.ceil(kv),
    kv_sequences_formula: `λ_peak · W = ${sig4(peak)} req/s · ${sig4(wS)} s = ${sig4(kv)} sequences (${sig4(kv / replicas)} per replica)`,
    kv_sequences_p99: Math.ceil(kv99),
    kv_sequences_p99_formula: `λ_peak · W_p99 = ${sig4(peak)} req/s · ${sig4(w99S)} s = ${sig4(kv99)} sequences (${sig4(kv99 / replicas)} per replica)`,
    timeout_ms: round3(timeout),
    timeout_formula: `max(3 × E2E p90, E2E p99.9) = max(3 × ${sig4(p90)}, ${sig4(p999)}) ms = ${sig4(timeout)} ms`,
  };
}
