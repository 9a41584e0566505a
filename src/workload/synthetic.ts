import type { Message } from '../client/openai.js';
import type { Rng } from '../rng.js';
import { plan, summarize, type CacheTally } from './describe.js';
import type { WorkloadInputs } from './inputs.js';
import { lengthSampler } from './lengths.js';
import { systemPrompts, tally } from './system-prompt.js';
import { requestText } from './prompts.js';
import { requestBody } from './request-body.js';
import { stream } from './streams.js';
import type { Calibration, Workload } from './types.js';

/** Draws behind each `spec` summary of a synthetic distribution. */
const SUMMARY_DRAWS = 10_000;

/**
 * Synthetic prompts: each request's own text sized by the calibration to the input length
 * drawn, after the system prompt of its prefix group (if the spec asks for prefixes).
 */
export function syntheticWorkload(inputs: WorkloadInputs, calibration: Calibration, salt: number): Workload {
  const { spec } = inputs;
  const w = spec.workload;
  const [inputRng, outputRng] = ['input_tokens', 'output_tokens'].map((p) => stream(w, p)) as [Rng, Rng];
  const input = lengthSampler(inputs.input!); // present whenever there is no dataset (resolve.ts)
  const output = lengthSampler(inputs.output);
  const system = systemPrompts(inputs, calibration, salt);
  const fixed = calibration.overhead_tokens + calibration.prefix_tokens;
  // For the expected cache hit ratio: prompt tokens an unbounded cache would already hold.
  const cache: CacheTally = { cacheable: 0, total: 0 };
  return {
    next(i) {
      const promptTokens = input(inputRng);
      const maxTokens = output(outputRng);
      const pick = system();
      const own = Math.max(1, Math.round((promptTokens - fixed) / calibration.tokens_per_word));
      const user: Message = { role: 'user', content: requestText(salt, i, own) };
      const messages = pick.message ? [pick.message, user] : [user];
      tally(cache, pick.cachedTokens, promptTokens);
      return { messages, body: requestBody(spec, messages, maxTokens), promptTokens, maxTokens };
    },
    describe() {
      const draws = (sampler: (rng: Rng) => number, purpose: string) => {
        const rng = stream(w, purpose);
        return summarize(Array.from({ length: SUMMARY_DRAWS }, () => sampler(rng)));
      };
      return {
        plan: plan(inputs, calibration, salt, cache, null),
        inputSpec: draws(input, 'summary_input'),
        outputSpec: draws(output, 'summary_output'),
      };
    },
  };
}
