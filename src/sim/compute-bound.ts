import type { SimConfig } from './config.js';
import type { JitterConfig } from './jitter.js';

/**
 * A real-engine-like, compute-bound engine (sim config `preset: compute-bound`): a small server
 * whose batching gains little, as llama.cpp on a CPU or a small model near a GPU's memory
 * bandwidth. Each decode step's gap grows with the running batch n:
 *   gap(n) = base · (1 + α·(n − 1)) = base·(1 − α) + base·α·n,
 * which is the engine's decode_base_ms + decode_ms_per_seq · n with
 *   decode_base_ms = base·(1 − α),   decode_ms_per_seq = base·α.
 * With base 3.5 ms, α = 3/7, 8 slots, 128-token prompts at 0.2 ms/token and 64 output tokens:
 *   one at a time: TTFT ≈ 25.6 + 3.5 ≈ 29 ms, E2E ≈ 25.6 + 64 · 3.5 ≈ 250 ms, X₁ ≈ 4 req/s;
 *   saturation (src/sim/engine.ts saturationRate): 1 / (64·2/8 + 1.5·63 + 0.2·128) ms ≈ 7.35 req/s,
 * so concurrency 1 reaches about half of saturation (batching gains 1.8×), and a full batch's
 * gap of 14 ms makes a request's E2E ≈ 0.9 s at saturation. Jitter (src/sim/jitter.ts) adds
 * per-step and per-request noise and a run-to-run factor drawn from the seed.
 */
export const COMPUTE_BOUND_BASE_MS = 3.5;
export const COMPUTE_BOUND_ALPHA = 3 / 7;
export const COMPUTE_BOUND_JITTER: JitterConfig = { step_cv: 0.1, request_cv: 0.2, run_cv: 0 };

/**
 * The preset's engine keys with every compute time divided by `timeScale`: a test or bench
 * replays the engine k times faster (rates × k, windows ÷ k) keeping its queueing dynamics
 * and the samples per window, as scripts/bench-gate.mjs does.
 */
export function computeBoundEngine(timeScale = 1, base = COMPUTE_BOUND_BASE_MS, alpha = COMPUTE_BOUND_ALPHA): Partial<SimConfig> {
  return {
    max_num_seqs: 8,
    max_num_batched_tokens: 2048,
    decode_base_ms: (base * (1 - alpha)) / timeScale,
    decode_ms_per_seq: (base * alpha) / timeScale,
    prefill_ms_per_token: 0.2 / timeScale,
    enable_prefix_caching: false,
    output_tokens: { dist: 'fixed', value: 64 },
    jitter: { ...COMPUTE_BOUND_JITTER },
  };
}

/** Named engine presets a sim config may start from (`preset:`); the config's own keys override them. */
export const SIM_PRESETS: Record<string, () => Partial<SimConfig>> = { 'compute-bound': () => computeBoundEngine() };
