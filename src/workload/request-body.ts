import { buildRequestBody, type Message } from '../client/openai.js';
import type { Spec } from '../spec/types.js';
import { modelOf } from '../spec/model.js';

/** The streamed request body for these messages, with the output length forced as workload.output_control says. */
export function requestBody(spec: Spec, messages: readonly Message[], maxTokens: number): string {
  const control = spec.workload.output_control;
  return buildRequestBody({
    api: spec.target.api,
    model: modelOf(spec),
    messages,
    maxTokens,
    ignoreEos: control === 'ignore_eos',
    ...(control === 'min_tokens' ? { minTokens: maxTokens } : {}),
  });
}
