import { buildSweepDocument, type SweepDocument } from '../../src/capacity/document.js';
import type { PointRole, SweepPoint } from '../../src/capacity/types.js';
import { resolveGate } from '../../src/spec/gate-schema.js';
import type { Result } from '../../src/result/types.js';
import { resolveSpec } from '../../src/spec/resolve.js';
import type { Spec } from '../../src/spec/types.js';
import { lognormal, synthesize } from '../result/synthetic.js';

/**
 * A synthetic operating point: a real Result (real Recorder, real build) whose TTFT is lognormal
 * around `ttftMs`, with the throughput, offered rate and goodput of a server at that load set as
 * a sweep would have measured them.
 */
export function syntheticPoint(o: {
  rate: number;
  completed?: number;
  ttftMs: number;
  sigma?: number;
  goodput?: number;
  role?: PointRole;
  concurrency?: number;
  windowS?: number;
  seed?: number;
  e2eMs?: number;
}): SweepPoint {
  const windowS = o.windowS ?? 10;
  const n = Math.max(120, Math.round(o.rate * windowS)); // ≥ 100 successes: the samples check passes
  const r: Result = synthesize({
    n,
    windowS,
    ttft: lognormal(o.ttftMs, o.sigma ?? 0.1),
    seed: o.seed ?? Math.round(o.rate * 100),
    tokens: 10,
  });
  const x = o.completed ?? o.rate;
  r.throughput = { requests_per_s: x, output_tokens_per_s: x * 10, total_tokens_per_s: x * 110 };
  r.load = { ...r.load, offered_rate_per_s: o.rate, achieved_rate_per_s: o.rate };
  const good = o.goodput ?? 1;
  r.goodput = { ...r.goodput, fraction: good, requests: Math.round(good * r.requests.window.scheduled) };
  const e2e = o.e2eMs ?? o.ttftMs * 5;
  r.littles_law = {
    mean_in_flight: (x * e2e) / 1000,
    predicted_in_flight: (x * e2e) / 1000,
    ratio: 1,
    peak_in_flight: Math.ceil((x * e2e) / 500),
  };
  const closed = o.concurrency !== undefined;
  return {
    role: o.role ?? 'step',
    mode: closed ? 'closed' : 'open',
    rate_per_s: closed ? null : o.rate,
    concurrency: o.concurrency ?? null,
    result: r,
  };
}

/** A spec with a sweep section, through the real resolver (defaults filled). */
export function sweepSpec(extra: Record<string, unknown> = {}, sizing?: Record<string, unknown>): Spec {
  const data = {
    name: 'synthetic sweep',
    target: { url: 'http://127.0.0.1:8000/v1', model: 'test-model' },
    workload: { input_tokens: 100, output_tokens: 10 },
    sweep: { rates: [10, 20], ...extra },
    ...(sizing ? { sizing } : {}),
  };
  const spec = resolveSpec(data).spec;
  spec.gate = resolveGate({});
  return spec;
}

/**
 * A server with capacity 40 req/s and S = 20 ms: latency stays near the floor to ~60 % load,
 * then rises as 1 / (1 − ρ); past 40 req/s completions stay at 40. `scale` shrinks every rate
 * (a slower build), so gating tests can move the curve.
 */
export function curvePoints(rates: number[], scale = 1, seed = 0): SweepPoint[] {
  const cap = 40 * scale;
  return rates.map((rate) => {
    const rho = Math.min(rate / cap, 0.995);
    const ttft = 20 / (1 - rho ** 3);
    const completed = Math.min(rate, cap);
    const goodput = rate > 0.8 * cap ? Math.max(0, 1 - (rate - 0.8 * cap) / (0.2 * cap)) : 1;
    return syntheticPoint({ rate, completed, ttftMs: ttft, goodput, seed: seed + Math.round(rate * 10) });
  });
}

export function sweepDocument(points: SweepPoint[], spec: Spec = sweepSpec(), o: { interrupted?: boolean } = {}): SweepDocument {
  return buildSweepDocument({
    spec,
    specHash: 'test',
    points,
    interrupted: o.interrupted ?? false,
    stoppedBecause: o.interrupted ? 'interrupted' : 'every planned point was measured',
    skippedLoads: [],
    batchSlots: spec.sizing?.batch_slots ?? null,
  });
}
