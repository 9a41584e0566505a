import type { Message } from '../client/openai.js';
import { sliceTrace } from '../arrivals/trace.js';
import { parseDuration } from '../spec/duration.js';
import { SpecError } from '../spec/error.js';
import type { TraceSpec } from '../spec/types.js';
import { plan, summarize, type CacheTally } from './describe.js';
import type { WorkloadInputs } from './inputs.js';
import { blockText, requestText } from './prompts.js';
import { requestBody } from './request-body.js';
import { systemPrompts, tally } from './system-prompt.js';
import { TRACE_BLOCK_TOKENS, type TraceEntry } from './trace-file.js';
import type { Calibration, Workload } from './types.js';

/**
 * Trace replay: the i-th request is the i-th arrival of the trace's slice, sent at its offset
 * (the workload's `schedule`), asking for the trace's output length as max_tokens and carrying
 * a prompt of the trace's input length. The prompt is sized as synthetic ones are,
 *
 *   words = (input_length − overhead − prefix) / tokens_per_word,
 *
 * and with Mooncake `hash_ids` it is the concatenation of each block's own text (512 tokens,
 * i.e. 512 / tokens_per_word words, the last block cut to what remains), so requests sharing
 * their first k hash ids share the first k blocks' exact text. Without hash ids each prompt is
 * unique from its first word. A shared system prompt or prefix group (workload.prefix,
 * prefix_groups) goes before it and counts inside the trace's input length.
 */
export function traceWorkload(inputs: WorkloadInputs, entries: TraceEntry[], calibration: Calibration, salt: number): Workload {
  const { spec } = inputs;
  const t = spec.workload.trace!;
  const { kept, schedule } = sliceTrace(
    entries.map((e) => e.atMs),
    sliceOf(t),
  );
  if (kept.length === 0)
    throw new SpecError(
      `${t.file}: no arrival in the slice start ${t.start}${t.duration ? `, duration ${t.duration}` : ''} (the trace spans ${Math.ceil(entries[entries.length - 1].atMs / 1000)} s); expected a slice inside the trace`,
    );
  const used = kept.map((k) => entries[k]);
  const system = systemPrompts(inputs, calibration, salt);
  const fixed = calibration.overhead_tokens + calibration.prefix_tokens;
  const blockWords = Math.max(1, Math.round(TRACE_BLOCK_TOKENS / calibration.tokens_per_word));
  const blocks = new Map<number, string>();
  const cache: CacheTally = { cacheable: 0, total: 0 };
  return {
    schedule,
    next(i) {
      const e = used[i];
      const own = Math.max(1, Math.round((e.inputTokens - fixed) / calibration.tokens_per_word));
      const pick = system();
      const seen = e.hashIds ? cachedPrefixBlocks(e.hashIds, blocks) : 0;
      const text = e.hashIds?.length
        ? blockPrompt(
            e.hashIds,
            own,
            blockWords,
            (h) => block(blocks, salt, h, blockWords),
            (n) => requestText(salt, i, n),
          )
        : requestText(salt, i, own);
      const user: Message = { role: 'user', content: text };
      const messages = pick.message ? [pick.message, user] : [user];
      tally(cache, pick.cachedTokens + Math.min(seen * TRACE_BLOCK_TOKENS, e.inputTokens), e.inputTokens);
      return { messages, body: requestBody(spec, messages, e.outputTokens), promptTokens: e.inputTokens, maxTokens: e.outputTokens };
    },
    describe() {
      return {
        plan: { ...plan(inputs, calibration, salt, cache, null), source: 'trace', trace: traceFacts(t, entries.length, used) },
        inputSpec: summarize(used.map((e) => e.inputTokens)),
        outputSpec: summarize(used.map((e) => e.outputTokens)),
      };
    },
  };
}

/** A prefix cache serves a prompt's leading blocks up to the first one never sent before. */
function cachedPrefixBlocks(ids: readonly number[], sent: Map<number, string>): number {
  let k = 0;
  while (k < ids.length && sent.has(ids[k])) k++;
  return k;
}

function sliceOf(t: TraceSpec) {
  return {
    speedup: t.speedup,
    startMs: parseDuration(t.start),
    durationMs: t.duration === undefined ? Infinity : parseDuration(t.duration),
  };
}

function block(blocks: Map<number, string>, salt: number, id: number, words: number): string {
  let text = blocks.get(id);
  if (text === undefined) blocks.set(id, (text = blockText(salt, id, words)));
  return text;
}

/** The prompt of `words` words: the blocks' texts in order, the last one cut to what remains. */
function blockPrompt(
  ids: readonly number[],
  words: number,
  blockWords: number,
  text: (id: number) => string,
  rest: (words: number) => string,
): string {
  const parts: string[] = [];
  let left = words;
  for (let k = 0; k < ids.length && left > 0; k++) {
    const whole = text(ids[k]);
    if (left >= blockWords) parts.push(whole);
    else parts.push(whole.split(' ', left).join(' '));
    left -= blockWords;
  }
  // A trace whose hash ids cover fewer tokens than its input length: the rest is the request's own.
  if (left > 0) parts.push(rest(left));
  return parts.join(' ');
}

function traceFacts(t: TraceSpec, total: number, used: TraceEntry[]) {
  return {
    file: t.file,
    format: t.format,
    speedup: t.speedup,
    arrivals: total,
    replayed: used.length,
    span_s: used.length > 1 ? Math.round((used[used.length - 1].atMs - used[0].atMs) / t.speedup) / 1000 : 0,
    with_hash_ids: used.some((e) => e.hashIds !== undefined),
    schedule: 'the trace (load.rate, load.arrival unused)',
  };
}
