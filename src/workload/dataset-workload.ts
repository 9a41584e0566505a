import { SpecError } from '../spec/error.js';
import type { Spec } from '../spec/types.js';
import { plan, summarize, type CacheTally } from './describe.js';
import { entryPicker, type Dataset } from './dataset.js';
import type { WorkloadInputs } from './inputs.js';
import { lengthSampler } from './lengths.js';
import { requestBody } from './request-body.js';
import { stream } from './streams.js';
import type { Calibration, Workload } from './types.js';

/**
 * Dataset entries with token estimates from the calibration: prompts as overhead + ratio ×
 * words, ShareGPT replies as ratio × words. Entries outside the filter are left out.
 */
export function datasetWorkload(inputs: WorkloadInputs, d: Dataset, calibration: Calibration, salt: number): Workload {
  const { spec } = inputs;
  const w = spec.workload;
  const ds = w.dataset!;
  const { tokens_per_word: tpw, overhead_tokens: overhead } = calibration;
  const sized = d.entries.map((e) => ({
    messages: e.messages,
    inputTokens: Math.max(1, Math.round(overhead + tpw * e.words)),
    outputTokens: e.maxTokens ?? (e.answerWords === undefined ? undefined : Math.max(1, Math.round(tpw * e.answerWords))),
  }));
  const entries = sized.filter((e) => passes(e.inputTokens, e.outputTokens, ds.filter));
  if (entries.length === 0) {
    throw new SpecError(
      `${ds.path}: no entry passes workload.dataset.filter (${sized.length} entries, estimated input ${range(sized.map((e) => e.inputTokens))} tokens); expected a filter that keeps at least one`,
    );
  }
  const pick = entryPicker(entries.length, ds.sample, stream(w, 'dataset'));
  const outputRng = stream(w, 'output_tokens');
  const output = lengthSampler(inputs.output);
  // Only a reused entry is certain to be cached: the dataset's prompts are what they are.
  const cache: CacheTally = { cacheable: 0, total: 0 };
  const used = new Set<number>();
  return {
    next() {
      const k = pick();
      const e = entries[k];
      const maxTokens = e.outputTokens ?? output(outputRng);
      if (used.has(k)) cache.cacheable += e.inputTokens;
      used.add(k);
      cache.total += e.inputTokens;
      return { messages: e.messages, body: requestBody(spec, e.messages, maxTokens), promptTokens: e.inputTokens, maxTokens };
    },
    describe() {
      const rng = stream(w, 'summary_output');
      return {
        plan: plan(inputs, calibration, salt, cache, {
          entries: sized.length + d.skipped,
          used_entries: used.size,
          skipped: d.skipped,
          filtered_out: sized.length - entries.length,
        }),
        inputSpec: summarize(entries.map((e) => e.inputTokens)),
        outputSpec: summarize(entries.map((e) => e.outputTokens ?? output(rng))),
      };
    },
  };
}

function passes(input: number, output: number | undefined, f: NonNullable<Spec['workload']['dataset']>['filter']): boolean {
  if (!f) return true;
  if (input < (f.min_input_tokens ?? 0) || input > (f.max_input_tokens ?? Infinity)) return false;
  return output === undefined || (output >= (f.min_output_tokens ?? 0) && output <= (f.max_output_tokens ?? Infinity));
}

const range = (xs: number[]) => `${xs.reduce((a, b) => Math.min(a, b))}–${xs.reduce((a, b) => Math.max(a, b))}`;
