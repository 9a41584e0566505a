import { createHash, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createRng, deriveSeed, type Rng } from '../rng.js';
import { buildRequestBody } from '../client/openai.js';
import { newHistogram, summarizeCounts, type CountSummary } from '../metrics/histogram.js';
import type { Calibration, WorkloadPlan } from '../result/types.js';
import { SpecError } from '../spec/error.js';
import type { LengthDist, ResolvedSpec, Spec } from '../spec/types.js';
import {
  calibrateDataset,
  calibrateSynthetic,
  findCounter,
  ONE_TOKEN_PER_WORD,
  uncalibrated,
  type CalibrationTarget,
} from './calibrate.js';
import { entryPicker, parseDataset, type Dataset } from './dataset.js';
import { lengthSampler, parseLengthFile, type LengthSource } from './lengths.js';
import { prefixMessage, zipfSampler, type PrefixWords } from './prefix.js';
import { promptText, requestText, type Message } from './prompts.js';
import { round3 } from '../numbers.js';

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

/** The spec's workload with every file it names read: what a run needs before it meets the target. */
export interface WorkloadInputs {
  spec: Spec;
  /** Null with a dataset. */
  input: LengthSource | null;
  output: LengthSource;
  dataset: Dataset | null;
  files: Record<string, string>;
}

/**
 * Reads the files the workload names (length files, dataset), relative to the spec's directory,
 * and checks them. No network, so `loadgate validate` can call it too; a bad file is a
 * one-line SpecError naming the file and line.
 */
export function loadWorkloadInputs(resolved: Pick<ResolvedSpec, 'spec' | 'specDir'>): WorkloadInputs {
  const { spec, specDir } = resolved;
  const files: Record<string, string> = {};
  const read = (key: string, path: string): string => {
    let text: string;
    try {
      text = readFileSync(resolve(specDir ?? '.', path), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new SpecError(
        `workload.${key} ${JSON.stringify(path)} cannot be read (${code === 'ENOENT' ? 'file not found' : (code ?? 'error')} at ${resolve(specDir ?? '.', path)}); expected a path relative to the spec file`,
      );
    }
    files[path] = createHash('sha256').update(text).digest('hex');
    return text;
  };
  const source = (key: string, d: LengthDist): LengthSource =>
    'file' in d ? { dist: 'empirical', ...parseLengthFile(read(`${key}.file`, d.file), d.file) } : d;
  const w = spec.workload;
  return {
    spec,
    input: w.input_tokens ? source('input_tokens', w.input_tokens) : null,
    output: source('output_tokens', w.output_tokens),
    dataset: w.dataset ? parseDataset(read('dataset.path', w.dataset.path), w.dataset.path, w.dataset.format) : null,
    files,
  };
}

/** Calibrates against the target as `workload.calibrate` says, then returns the generator. */
export async function prepareWorkload(inputs: WorkloadInputs, target: Omit<CalibrationTarget, 'api' | 'model'>): Promise<Workload> {
  const salt = randomInt(1, 2 ** 31);
  const calibration = await calibrate(inputs, { ...target, api: inputs.spec.target.api, model: inputs.spec.target.model }, salt + 1);
  return createWorkload(inputs, calibration, salt);
}

/**
 * Calibration prompts use their own salt, so a probe never warms the cache for the run's
 * synthetic prompts. (A dataset's sampled prompts are its own; probing them may warm the
 * cache for their first use, which the warmup should absorb.)
 */
async function calibrate(inputs: WorkloadInputs, target: CalibrationTarget, salt: number): Promise<Calibration> {
  const w = inputs.spec.workload;
  if (w.calibrate === 'off') return uncalibrated();
  const counter = await findCounter(w.calibrate, target);
  if ('failed' in counter) return uncalibrated(`no tokenizer answered (${counter.failed}); ${ONE_TOKEN_PER_WORD}`);
  const plain = (words: number): Message[] => [{ role: 'user', content: requestText(salt, words, words) }];
  try {
    if (inputs.dataset) {
      const entries = inputs.dataset.entries;
      const pick = entryPicker(entries.length, 'without_replacement', createRng(deriveSeed(w.seed, 'calibration_sample')));
      const sample = Array.from({ length: Math.min(CALIBRATION_ENTRIES, entries.length) }, () => entries[pick()].messages);
      return await calibrateDataset(counter, plain, sample);
    }
    if (!w.prefix && !w.prefix_groups) return await calibrateSynthetic(counter, plain);
    return await calibrateSynthetic(counter, plain, (words, tokensPerWord) => [
      prefixMessage(salt, prefixWords(w, tokensPerWord), 0)!,
      ...plain(words),
    ]);
  } catch (err) {
    throw new Error(
      `calibrating prompt lengths with ${counter.source} failed: ${(err as Error).message}; expected the target to count prompts of up to ~1,000 words, or workload.calibrate: off`,
      { cause: err },
    );
  }
}

/** Dataset prompts counted to learn the dataset's tokens per word. */
const CALIBRATION_ENTRIES = 16;
/** Draws behind each `spec` summary of a synthetic distribution. */
const SUMMARY_DRAWS = 10_000;

function prefixWords(w: Spec['workload'], tokensPerWord: number): PrefixWords {
  const words = (tokens: number | undefined) => (tokens ? Math.max(1, Math.round(tokens / tokensPerWord)) : 0);
  return { shared: words(w.prefix?.shared_tokens), group: words(w.prefix_groups?.tokens) };
}

/**
 * The generator, given a calibration and the run's prompt salt: pure and seeded, so the same
 * spec, calibration and salt give the same requests. Input lengths, output lengths, prefix
 * groups and dataset picks draw from separate streams, so changing one never moves another.
 */
export function createWorkload(inputs: WorkloadInputs, calibration: Calibration, salt: number): Workload {
  return inputs.dataset ? datasetWorkload(inputs, inputs.dataset, calibration, salt) : syntheticWorkload(inputs, calibration, salt);
}

const stream = (w: Spec['workload'], purpose: string): Rng => createRng(deriveSeed(w.seed, purpose));

function syntheticWorkload(inputs: WorkloadInputs, calibration: Calibration, salt: number): Workload {
  const { spec } = inputs;
  const w = spec.workload;
  const [inputRng, outputRng, groupRng] = ['input_tokens', 'output_tokens', 'prefix_groups'].map((p) => stream(w, p)) as [Rng, Rng, Rng];
  const input = lengthSampler(inputs.input!); // present whenever there is no dataset (resolve.ts)
  const output = lengthSampler(inputs.output);
  const pickGroup = w.prefix_groups ? zipfSampler(w.prefix_groups.groups, w.prefix_groups.zipf_s) : undefined;
  const words = prefixWords(w, calibration.tokens_per_word);
  const fixed = calibration.overhead_tokens + calibration.prefix_tokens;
  // For the expected cache hit ratio: prompt tokens an unbounded cache would already hold.
  const cache = { cacheable: 0, total: 0 };
  // One system message per group, built once: the same text each time, and not rebuilt on the hot path.
  const systems = new Map<number | null, Message | null>();
  return {
    next(i) {
      const promptTokens = input(inputRng);
      const maxTokens = output(outputRng);
      const group = pickGroup ? pickGroup(groupRng) : null;
      const seen = systems.has(group);
      if (!seen) systems.set(group, prefixMessage(salt, words, group));
      const system = systems.get(group) ?? null;
      const own = Math.max(1, Math.round((promptTokens - fixed) / calibration.tokens_per_word));
      const user: Message = { role: 'user', content: requestText(salt, i, own) };
      const messages = system ? [system, user] : [user];
      // The shared prompt is cached once any request has gone; a group's once that group has.
      if (cache.total > 0) cache.cacheable += w.prefix?.shared_tokens ?? 0;
      if (group !== null && seen) cache.cacheable += w.prefix_groups!.tokens;
      cache.total += promptTokens;
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

/**
 * Dataset entries with token estimates from the calibration: prompts as overhead + ratio ×
 * words, ShareGPT replies as ratio × words. Entries outside the filter are left out.
 */
function datasetWorkload(inputs: WorkloadInputs, d: Dataset, calibration: Calibration, salt: number): Workload {
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
  const cache = { cacheable: 0, total: 0 };
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

function plan(
  inputs: WorkloadInputs,
  calibration: Calibration,
  salt: number,
  cache: { cacheable: number; total: number },
  dataset: WorkloadPlan['dataset'],
): WorkloadPlan {
  const w = inputs.spec.workload;
  const mode = dataset
    ? 'dataset'
    : w.prefix && w.prefix_groups
      ? 'shared+groups'
      : w.prefix
        ? 'shared'
        : w.prefix_groups
          ? 'groups'
          : 'unique';
  return {
    source: dataset ? 'dataset' : 'synthetic',
    output_control: w.output_control,
    calibration,
    prefix: { mode, expected_cache_hit_ratio: cache.total > 0 ? round3(cache.cacheable / cache.total) : 0 },
    dataset,
    files: inputs.files,
    salt,
  };
}

/**
 * The streamed request body. buildRequestBody sends a prompt as one user message; a
 * request with a system prompt (or a dataset's messages) replaces that with its messages.
 */
function requestBody(spec: Spec, messages: Message[], maxTokens: number): string {
  const control = spec.workload.output_control;
  const options = {
    api: spec.target.api,
    model: spec.target.model,
    maxTokens,
    ignoreEos: control === 'ignore_eos',
    ...(control === 'min_tokens' ? { minTokens: maxTokens } : {}),
  };
  const single = messages.length === 1 && messages[0].role === 'user';
  if (spec.target.api === 'completions' || single) return buildRequestBody({ ...options, prompt: promptText(messages) });
  return JSON.stringify({ ...JSON.parse(buildRequestBody({ ...options, prompt: '' })), messages });
}

function summarize(values: number[]): CountSummary | null {
  const h = newHistogram();
  for (const v of values) h.recordValue(v);
  return summarizeCounts(h);
}

const range = (xs: number[]) => `${xs.reduce((a, b) => Math.min(a, b))}–${xs.reduce((a, b) => Math.max(a, b))}`;
