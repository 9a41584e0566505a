import type { SweepDocument } from '../../src/capacity/document.js';
import { validateSimConfig } from '../../src/sim/config.js';
import { saturationRate } from '../../src/sim/engine.js';
import { parseSpec } from '../../src/spec/load.js';
import type { ResolvedSpec } from '../../src/spec/types.js';

/**
 * A small, slow engine, so a busy machine keeps up with it: 8 batch slots, a 20 ms decode step
 * plus 2 ms per sequence. For 50-token prompts and 10-token outputs its analytic saturation rate
 * (src/sim/engine.ts) is 1 / (10·20/8 + 2·9 + 0.02·50) ms = 22.7 req/s; a lone request's first
 * token comes after one step of 20 ms + 50 · 0.02 ms of prefill = 21 ms.
 */
export const ENGINE = {
  max_num_seqs: 8,
  decode_base_ms: 20,
  decode_ms_per_seq: 2,
  prefill_ms_per_token: 0.02,
  enable_prefix_caching: false,
};
export const PROMPT = 50;
export const OUTPUT = 10;
export const CAPACITY = saturationRate(validateSimConfig(ENGINE), PROMPT, OUTPUT);
export const TTFT_FLOOR_MS = ENGINE.decode_base_ms + PROMPT * ENGINE.prefill_ms_per_token;

/** A sweep spec against that engine: constant arrivals (each point's offered rate is exact), short windows. */
export function simSweepSpec(sweep: string, slo = '{ ttft_ms: 150 }'): ResolvedSpec {
  return parseSpec(
    `target: { url: sim, sim: ${JSON.stringify(ENGINE)} }
workload: { seed: 5, input_tokens: ${PROMPT}, output_tokens: ${OUTPUT}, calibrate: off }
load: { arrival: constant, warmup: 500ms, steady: 2500ms, cooldown: 0s }
slo: ${slo}
sweep: ${sweep}
`,
    'sweep.yml',
    {},
  );
}

/** A sweep's points, a line each, for a failure message that shows what the analysis saw. */
export const pointTable = (d: SweepDocument): string =>
  d.analysis.points
    .map(
      (p) =>
        `${p.role} ${p.load}: X ${p.requests_per_s} of ${p.offered_rate_per_s}, p99 ${p.latency_ms.p99}, goodput ${p.goodput_fraction}`,
    )
    .join('\n');
