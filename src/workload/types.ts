import type { Message } from '../client/openai.js';
import type { CountSummary } from '../metrics/histogram.js';
import { Described, Dict, Nullable, OneOf, Type, type Static } from '../json-schema.js';
import { ThinkTimeSchema } from '../spec/think-time.js';
import { OUTPUT_CONTROLS } from '../spec/types.js';
import { TurnRowSchema, type TurnOutcome } from './session-stats.js';

/*
 * What the workload stage hands on: the requests (WorkItem) and the facts the result records
 * about them (WorkloadFacts, whose plan is the result's workload.plan).
 */

/** One request's prompt and lengths. `promptTokens` is the input length asked for (a dataset's: estimated). */
export interface WorkItem {
  messages: Message[];
  body: string;
  promptTokens: number;
  maxTokens: number;
}

export interface Workload {
  /** The i-th request; call with i = 0, 1, 2, … in order (the random streams are sequential). */
  next(i: number): WorkItem;
  /** A replayed trace's own arrival offsets (ms from the start, ascending): the open-loop schedule instead of load.rate's. */
  schedule?: Float64Array;
  /** Multi-turn sessions: the run starts conversations instead of single requests. */
  sessions?: SessionSource;
  /** What the result says about the workload; reflects every request made so far. */
  describe(): WorkloadFacts;
}

/** Where a multi-turn run's conversations come from, and where their turns' figures go. */
export interface SessionSource {
  /** A new conversation (its turn count drawn, its system prompt picked). */
  start(): Conversation;
  /** One ended turn's figures. */
  record(o: TurnOutcome): void;
  /** A conversation ended: all its turns answered, a turn failed (the rest are not sent), or the run's end came first. */
  ended(how: 'completed' | 'failed' | 'cut'): void;
  /** The server view's prefix-cache hit rate over the window, shown beside the per-turn figures. */
  serverHitRate(rate: number | null): void;
}

export interface Conversation {
  readonly turns: number;
  /** The next turn's request; `reply` is the assistant's streamed answer to the previous turn (absent for the first). */
  nextTurn(reply?: { text: string; tokens: number }): WorkItem;
  /** A think time in ms, drawn for the gap before the next turn. */
  thinkMs(): number;
}

export interface WorkloadFacts {
  plan: WorkloadPlan;
  /** The input and output length distributions the spec (or dataset) describes. */
  inputSpec: CountSummary | null;
  outputSpec: CountSummary | null;
}

/** How synthetic prompts were sized for the target's tokenizer: tokens ≈ overhead + prefix + tokens_per_word × words. */
export const CalibrationSchema = Type.Object({
  method: OneOf(['tokenize', 'probe', 'off']),
  source: Described('What counted the tokens (e.g. "POST /tokenize (vLLM-style)"), or why nothing could.', Type.String()),
  tokens_per_word: Described("Of the filler vocabulary; for a dataset, of the dataset's own text.", Type.Number()),
  overhead_tokens: Described('Tokens of the request format itself: chat template, BOS, the request-unique word.', Type.Number()),
  prefix_tokens: Described('Tokens of the shared system prompt and/or group prefix, as the target counted them.', Type.Number()),
  samples: Described('Requests counted to fit the line.', Type.Number()),
  max_residual_tokens: Described('Largest |fitted − counted| over the samples.', Type.Number()),
});
export type Calibration = Static<typeof CalibrationSchema>;

export const SessionsFactsSchema = Type.Object({
  rate_unit: Described('load.rate counts conversations started per second, not requests.', Type.Literal('sessions/s')),
  started: Type.Number(),
  completed: Type.Number(),
  ended_by_failure: Described('Conversations ended by a failed turn: the rest of their turns were never sent (no retry).', Type.Number()),
  cut_by_run_end: Described("Conversations whose next turn would have been due after the run's end.", Type.Number()),
  turns_planned: Type.Number(),
  think_time: ThinkTimeSchema,
  by_turn: Type.Array(TurnRowSchema),
  context_growth: Described(
    'Prompt-token growth from turn to turn, delivered (server usage) vs requested, summed over the turns measured.',
    Nullable(Type.Object({ delivered: Type.Number(), requested: Type.Number() })),
  ),
  server_prefix_cache_hit_rate: Nullable(Type.Number()),
});
export type SessionsFacts = Static<typeof SessionsFactsSchema>;

export const TraceFactsSchema = Type.Object({
  file: Type.String(),
  format: OneOf(['mooncake', 'azure']),
  speedup: Type.Number(),
  arrivals: Described('Arrivals in the file, and in the slice replayed.', Type.Number()),
  replayed: Type.Number(),
  span_s: Described("Seconds from the slice's first arrival to its last, after the speedup.", Type.Number()),
  with_hash_ids: Type.Boolean(),
  schedule: Type.String(),
});
export type TraceFacts = Static<typeof TraceFactsSchema>;

/** How prompts and lengths were made: the result's workload.plan. */
export const WorkloadPlanSchema = Type.Object({
  source: OneOf(['synthetic', 'dataset', 'trace']),
  output_control: OneOf(OUTPUT_CONTROLS),
  calibration: CalibrationSchema,
  prefix: Type.Object({
    mode: Described(
      'unique: every prompt differs from its first word; dataset: prompts as the dataset has them (reused entries repeat).',
      OneOf(['unique', 'shared', 'groups', 'shared+groups', 'dataset']),
    ),
    expected_cache_hit_ratio: Described(
      'Share of all prompt tokens an unbounded prefix cache could serve for these prompts (block rounding ignored; for a dataset, from reused entries only).',
      Type.Number(),
    ),
  }),
  dataset: Nullable(
    Type.Object({ entries: Type.Number(), used_entries: Type.Number(), skipped: Type.Number(), filtered_out: Type.Number() }),
  ),
  files: Described(
    'sha256 of each file read (dataset, length files), keyed by the path as the spec wrote it: a changed file shows.',
    Dict(Type.String()),
  ),
  salt: Described("The run's prompt salt (random per run, so no run hits another's prefix cache).", Type.Number()),
  sessions: Described('Multi-turn sessions: how they went, and the figures by turn index.', Type.Optional(SessionsFactsSchema)),
  trace: Described('Trace replay: the file and the slice replayed.', Type.Optional(TraceFactsSchema)),
});
export type WorkloadPlan = Static<typeof WorkloadPlanSchema>;
