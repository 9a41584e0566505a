import type { Message } from '../client/openai.js';
import type { CountSummary } from '../metrics/histogram.js';
import type { OutputControl, ThinkTime } from '../spec/types.js';
import type { TurnOutcome, TurnRow } from './session-stats.js';

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
export interface Calibration {
  method: 'tokenize' | 'probe' | 'off';
  /** What counted the tokens (e.g. "POST /tokenize (vLLM-style)"), or why nothing could. */
  source: string;
  /** Of the filler vocabulary; for a dataset, of the dataset's own text. */
  tokens_per_word: number;
  /** Tokens of the request format itself: chat template, BOS, the request-unique word. */
  overhead_tokens: number;
  /** Tokens of the shared system prompt and/or group prefix, as the target counted them. */
  prefix_tokens: number;
  /** Requests counted to fit the line. */
  samples: number;
  /** Largest |fitted − counted| over the samples. */
  max_residual_tokens: number;
}

export interface WorkloadPlan {
  source: 'synthetic' | 'dataset' | 'trace';
  output_control: OutputControl;
  calibration: Calibration;
  prefix: {
    /** unique: every prompt differs from its first word; dataset: prompts as the dataset has them (reused entries repeat). */
    mode: 'unique' | 'shared' | 'groups' | 'shared+groups' | 'dataset';
    /** Share of all prompt tokens an unbounded prefix cache could serve for these prompts (block rounding ignored; for a dataset, from reused entries only). */
    expected_cache_hit_ratio: number;
  };
  dataset: { entries: number; used_entries: number; skipped: number; filtered_out: number } | null;
  /** sha256 of each file read (dataset, length files), keyed by the path as the spec wrote it: a changed file shows. */
  files: Record<string, string>;
  /** The run's prompt salt (random per run, so no run hits another's prefix cache). */
  salt: number;
  /** Multi-turn sessions: how they went, and the figures by turn index. */
  sessions?: SessionsFacts;
  /** Trace replay: the file and the slice replayed. */
  trace?: TraceFacts;
}

export interface SessionsFacts {
  /** load.rate counts conversations started per second, not requests. */
  rate_unit: 'sessions/s';
  started: number;
  completed: number;
  /** Conversations ended by a failed turn: the rest of their turns were never sent (no retry). */
  ended_by_failure: number;
  /** Conversations whose next turn would have been due after the run's end. */
  cut_by_run_end: number;
  turns_planned: number;
  think_time: ThinkTime;
  by_turn: TurnRow[];
  /** Prompt-token growth from turn to turn, delivered (server usage) vs requested, summed over the turns measured. */
  context_growth: { delivered: number; requested: number } | null;
  server_prefix_cache_hit_rate: number | null;
}

export interface TraceFacts {
  file: string;
  format: 'mooncake' | 'azure';
  speedup: number;
  /** Arrivals in the file, and in the slice replayed. */
  arrivals: number;
  replayed: number;
  /** Seconds from the slice's first arrival to its last, after the speedup. */
  span_s: number;
  with_hash_ids: boolean;
  schedule: string;
}
