import { createRng, gamma, normal, type Rng } from '../../src/rng.js';
import type { Outcome } from '../../src/client/types.js';
import { resolveGate } from '../../src/spec/gate-schema.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { buildResult } from '../../src/result/build.js';
import type { GeneratorLimits } from '../../src/spec/generator-limits.js';
import type { Result } from '../../src/result/types.js';
import type { WindowCpu } from '../../src/metrics/window-cpu.js';
import { specHash } from '../../src/spec/hash.js';
import type { ResolvedSpec, Spec } from '../../src/spec/types.js';

/** A synthetic run: requests spaced evenly over the window, timings drawn from seeded samplers. */
export interface Synth {
  seed?: number;
  /** Requests scheduled in the window. */
  n?: number;
  windowS?: number;
  /** TTFT in ms. */
  ttft?: (rng: Rng, i: number) => number;
  /** Gap between consecutive tokens in ms. */
  itl?: (rng: Rng, i: number) => number;
  tokens?: number;
  promptTokens?: number;
  /** The run was stopped early (Ctrl-C). */
  interrupted?: boolean;
  /** Class of request i; default ok. */
  outcome?: (i: number) => Outcome;
  detail?: string;
  /** t_send − t_sched in ms; a function gives request i its own lag (sporadic spikes). */
  lagMs?: number | ((i: number) => number);
  /** Wait in the HTTP pool, t_written − t_send in ms. */
  poolWaitMs?: number;
  /** The generator thread's window CPU; default 20 % busy, 5 % spin. */
  windowCpu?: WindowCpu | null;
  model?: string;
  /** The spec's rate; default n / windowS. */
  rate?: number;
  specName?: string;
  /** The spec's gate.validity (the generator limits). */
  validity?: Partial<GeneratorLimits>;
  /** Record only these requests; the others still draw their timings, so a split run's parts add up to the whole. */
  include?: (i: number) => boolean;
}

export const lognormal = (medianMs: number, sigma: number) => (rng: Rng) => medianMs * Math.exp(sigma * normal(rng));
export const gammaMs = (shape: number, meanMs: number) => (rng: Rng) => (gamma(rng, shape) * meanMs) / shape;

/** The fields results and the gate read; asserted, as the spec's owners keep adding optional sections. */
export function makeSpec(o: {
  model?: string;
  rate: number;
  windowS: number;
  tokens: number;
  promptTokens: number;
  name?: string;
  validity?: Partial<GeneratorLimits>;
}): Spec {
  return {
    name: o.name ?? 'synthetic',
    target: {
      url: 'http://127.0.0.1:8000/v1',
      api: 'chat',
      model: o.model ?? 'test-model',
      headers: {},
      request_timeout: '60s',
      ready_timeout: '60s',
      sim: {},
    },
    workload: { seed: 1, input_tokens: { dist: 'fixed', value: o.promptTokens }, output_tokens: { dist: 'fixed', value: o.tokens } },
    load: {
      mode: 'open',
      arrival: 'poisson',
      burstiness: 1,
      rate: o.rate,
      concurrency: 8,
      warmup: '0s',
      steady: `${o.windowS}s`,
      cooldown: '0s',
      max_in_flight: 10000,
    },
    slo: { ttft_ms: 500, tpot_ms: 50, e2e_ms: 10000 },
    ...(o.validity ? { gate: resolveGate({ validity: o.validity }) } : {}),
  } as Spec;
}

/** Records the synthetic requests through the real Recorder and builds the real Result. */
let synthesized = 0;

export function synthesize(o: Synth = {}): Result {
  const n = o.n ?? 1000;
  const windowS = o.windowS ?? 100;
  const windowMs = windowS * 1000;
  const tokens = o.tokens ?? 20;
  const promptTokens = o.promptTokens ?? 100;
  const rng = createRng(o.seed ?? 1);
  const ttft = o.ttft ?? lognormal(100, 0.3);
  const itl = o.itl ?? lognormal(10, 0.2);
  const fixedLag = typeof o.lagMs === 'number' ? o.lagMs : 0.2;
  const lagOf = typeof o.lagMs === 'function' ? o.lagMs : () => fixedLag;
  const spec = makeSpec({
    model: o.model,
    rate: o.rate ?? n / windowS,
    windowS,
    tokens,
    promptTokens,
    name: o.specName,
    validity: o.validity,
  });
  // Asserted, not annotated: buildResult reads only these fields, and the spec's owners may add more.
  const resolved = {
    spec,
    hash: specHash(spec),
    headers: {},
    requestTimeoutMs: 60000,
    readyTimeoutMs: 60000,
    warmupMs: 0,
    steadyMs: windowMs,
    cooldownMs: 0,
  } as ResolvedSpec;
  // Each a run of its own, as real runs are: merge and calibrate --from refuse one run given twice.
  const rec = new Recorder({ runId: `synthetic-${++synthesized}`, runStart: 0, windowFromMs: 0, windowToMs: windowMs, slo: spec.slo });
  for (let i = 0; i < n; i++) {
    const tSched = (i * windowMs) / n;
    const outcome = o.outcome?.(i) ?? 'ok';
    const gaps = outcome === 'ok' ? [ttft(rng, i), ...Array.from({ length: tokens - 1 }, () => itl(rng, i))] : [];
    if (o.include && !o.include(i)) continue;
    const r = rec.open(i, tSched, promptTokens, tokens);
    const lag = lagOf(i);
    if (outcome === 'dropped') {
      r.onEnd(tSched, 'dropped', o.detail);
      continue;
    }
    rec.markSent(r, tSched + lag);
    r.onWritten(tSched + lag + (o.poolWaitMs ?? 0.1));
    r.onHeaders(tSched + lag + 1, outcome === 'ok' ? 200 : 500);
    if (outcome !== 'ok') {
      r.onEnd(tSched + lag + 5, outcome, o.detail ?? `${outcome} detail`);
      continue;
    }
    let t = tSched;
    for (const gap of gaps) {
      t += gap;
      r.onContent(t, 'answer');
    }
    r.onUsage(promptTokens, tokens);
    r.onEnd(t + 0.5, 'ok');
  }
  return buildResult(rec, {
    resolved,
    targetUrl: spec.target.url,
    simulator: false,
    windowMs,
    interrupted: o.interrupted ?? false,
    notReached: 0,
    eventLoopDelayMs: { p50: 0.5, p99: 1, max: 2 },
    cpuS: 1,
    wallS: windowS,
    windowCpu: o.windowCpu === undefined ? { busy: 0.2, spin: 0.05 } : o.windowCpu,
    workers: 1,
  });
}
