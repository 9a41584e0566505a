import type { Message } from '../client/openai.js';
import type { CountSummary } from '../metrics/histogram.js';
import type { OutputControl } from '../spec/types.js';

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
  /** What the result says about the workload; reflects every request made so far. */
  describe(): WorkloadFacts;
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
  source: 'synthetic' | 'dataset';
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
}
