import type { Message } from '../client/openai.js';
import type { Rng } from '../rng.js';
import { plan, summarize, type CacheTally } from './describe.js';
import { entryPicker, type DatasetEntry } from './dataset.js';
import type { WorkloadInputs } from './inputs.js';
import { lengthSampler, type LengthSource } from './lengths.js';
import { requestText } from './prompts.js';
import { requestBody } from './request-body.js';
import { contextGrowth, TurnStats, type TurnOutcome } from './session-stats.js';
import { stream } from './streams.js';
import { systemPrompts, tally } from './system-prompt.js';
import { thinkSampler } from './think-time.js';
import type { Calibration, Conversation, SessionSource, WorkItem, Workload } from './types.js';

/**
 * Multi-turn sessions (workload.sessions). A conversation starts open-loop (load.rate is
 * sessions per second) and has `turns` turns. Turn k's request carries the whole
 * conversation so far — the system prompt (shared prefix or group, one per session), every
 * earlier user message and the assistant's actual streamed reply to it — then a new user
 * message of input_tokens tokens (the first turn's input_tokens includes the system prompt
 * and request overhead, as for single requests). What it asks the server to count,
 *
 *   requested_k = requested_{k−1} + reply_{k−1} + user_k,
 *
 * uses the reply's real token count, so growth is judged against what the server sent.
 * Conversations from a ShareGPT dataset use all their human turns as the user messages, in
 * order (at most `turns` when given), and their reference replies' lengths as max_tokens.
 */
export function sessionWorkload(inputs: WorkloadInputs, calibration: Calibration, salt: number): Workload {
  const { spec } = inputs;
  const w = spec.workload;
  const s = w.sessions!;
  const [turnRng, inputRng, outputRng, thinkRng] = ['session_turns', 'input_tokens', 'output_tokens', 'think_time'].map((p) =>
    stream(w, p),
  );
  const turnCount = s.turns ? lengthSampler(s.turns as LengthSource) : undefined;
  const input = inputs.input ? lengthSampler(inputs.input) : undefined;
  const output = lengthSampler(inputs.output);
  const think = thinkSampler(s.think_time);
  const system = systemPrompts(inputs, calibration, salt);
  const tpw = calibration.tokens_per_word;
  const fixed = calibration.overhead_tokens + calibration.prefix_tokens;
  const pickEntry = inputs.dataset ? entryPicker(inputs.dataset.entries.length, w.dataset!.sample, stream(w, 'dataset')) : undefined;
  const counts = { started: 0, completed: 0, ended_by_failure: 0, cut_by_run_end: 0, turns_planned: 0 };
  const stats = new TurnStats();
  const cache: CacheTally = { cacheable: 0, total: 0 };
  let messageId = 0;
  let serverHitRate: number | null | undefined;

  /** The user messages of one conversation: synthetic ones sized from input_tokens, or a ShareGPT entry's human turns. */
  const userTurns = (): UserTurn[] => {
    const n = turnCount?.(turnRng);
    if (pickEntry) return datasetTurns(inputs.dataset!.entries[pickEntry()], n, tpw, calibration.overhead_tokens);
    return Array.from({ length: n! }, (_, k) => {
      const tokens = input!(inputRng);
      const words = Math.max(1, Math.round((k === 0 ? tokens - fixed : tokens) / tpw));
      return { text: requestText(salt, messageId++, words), tokens, maxTokens: output(outputRng) };
    });
  };

  const source: SessionSource = {
    start() {
      counts.started++;
      const turns = userTurns();
      counts.turns_planned += turns.length;
      return conversation(
        turns,
        system(),
        (m, max) => requestBody(spec, m, max),
        () => think(thinkRng),
        cache,
      );
    },
    record: (o: TurnOutcome) => stats.record(o),
    ended: (how) => void counts[how === 'completed' ? 'completed' : how === 'failed' ? 'ended_by_failure' : 'cut_by_run_end']++,
    serverHitRate: (rate) => void (serverHitRate = rate),
  };
  return {
    sessions: source,
    next: () => source.start().nextTurn(),
    describe() {
      const byTurn = stats.table();
      return {
        plan: {
          ...plan(inputs, calibration, salt, cache, null),
          source: inputs.dataset ? 'dataset' : 'synthetic',
          sessions: {
            rate_unit: 'sessions/s' as const,
            ...counts,
            think_time: s.think_time,
            by_turn: byTurn,
            context_growth: contextGrowth(byTurn),
            server_prefix_cache_hit_rate: serverHitRate ?? null,
          },
        },
        inputSpec: inputs.input ? summarizeDraws(lengthSampler(inputs.input), stream(w, 'summary_input')) : null,
        outputSpec: inputs.dataset ? null : summarizeDraws(output, stream(w, 'summary_output')),
      };
    },
  };
}

/** Draws behind the summary of the new user message's length distribution. */
const SUMMARY_DRAWS = 10_000;
const summarizeDraws = (sampler: (rng: Rng) => number, rng: Rng) => summarize(Array.from({ length: SUMMARY_DRAWS }, () => sampler(rng)));

interface UserTurn {
  text: string;
  /** Tokens this message adds to the prompt (the first: the whole first prompt). */
  tokens: number;
  maxTokens: number;
}

function datasetTurns(e: DatasetEntry, cap: number | undefined, tpw: number, overhead: number): UserTurn[] {
  const turns = (e.turns ?? [{ text: e.messages[0].content, words: e.words, answerWords: e.answerWords ?? 1 }]).slice(0, cap ?? Infinity);
  return turns.map((t, k) => ({
    text: t.text,
    tokens: Math.max(1, Math.round((k === 0 ? overhead : 0) + tpw * t.words)),
    maxTokens: Math.max(1, Math.round(tpw * t.answerWords)),
  }));
}

/** One conversation's state: its messages so far and what the next turn asks for. */
function conversation(
  turns: UserTurn[],
  pick: { message: Message | null; cachedTokens: number },
  body: (messages: readonly Message[], maxTokens: number) => string,
  thinkMs: () => number,
  cache: CacheTally,
): Conversation {
  const messages: Message[] = pick.message ? [pick.message] : [];
  let k = 0;
  let requested = 0;
  return {
    turns: turns.length,
    thinkMs,
    nextTurn(reply) {
      if (reply) {
        messages.push({ role: 'assistant', content: reply.text });
        requested += reply.tokens;
      }
      // What an unbounded cache already holds: the system prompt first, then the whole previous prompt and its reply.
      const cached = k === 0 ? pick.cachedTokens : requested;
      const t = turns[k++];
      requested += t.tokens;
      messages.push({ role: 'user', content: t.text });
      tally(cache, cached, requested);
      const item: WorkItem = {
        messages: [...messages],
        body: body(messages, t.maxTokens),
        promptTokens: requested,
        maxTokens: t.maxTokens,
      };
      return item;
    },
  };
}
