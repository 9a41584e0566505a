import { request } from 'undici';
import { errorMessage, promptText, type Message } from '../client/openai.js';
import type { CalibrateMode } from '../spec/types.js';
import { entryPicker } from './dataset.js';
import type { WorkloadInputs } from './inputs.js';
import { prefixMessage, prefixWords } from './prefix.js';
import { countWords, requestText } from './prompts.js';
import { stream } from './streams.js';
import type { Calibration } from './types.js';
import { maxOf, round3 } from '../numbers.js';

/**
 * Calibration: how many of the target's tokens a prompt of w words makes. We bundle no
 * tokenizer; the target counts for us, and the count is modelled as a line,
 *
 *   tokens(w) = overhead + tokens_per_word · w,
 *
 * fitted by least squares to a few prompts of different lengths. The overhead is what every
 * request carries whatever its length (chat template, BOS, the request-unique first word).
 *
 * Who counts, in the order `auto` tries them:
 *  1. `POST {root}/tokenize` vLLM/SGLang-style ({model, messages | prompt} → {count}), which
 *     applies the chat template exactly as the chat endpoint does; the simulator has it too;
 *  2. llama.cpp-style (`/apply-template` for chat, then `/tokenize {content}` → {tokens});
 *  3. probe requests (max_tokens 1) reading `usage.prompt_tokens`: works on any compliant
 *     server, at the cost of a short prefill each.
 * When none answers, `auto` assumes one token per word (the simulator's rule) and says so.
 */

/**
 * Calibration prompts use their own salt, so a probe never warms the cache for the run's
 * synthetic prompts. (A dataset's sampled prompts are its own; probing them may warm the
 * cache for their first use, which the warmup should absorb.)
 */
export async function calibrateWorkload(inputs: WorkloadInputs, target: CalibrationTarget, salt: number): Promise<Calibration> {
  const w = inputs.spec.workload;
  if (w.calibrate === 'off') return uncalibrated();
  const counter = await findCounter(w.calibrate, target);
  if ('failed' in counter) return uncalibrated(`no tokenizer answered (${counter.failed}); ${ONE_TOKEN_PER_WORD}`);
  const plain = (words: number): Message[] => [{ role: 'user', content: requestText(salt, words, words) }];
  try {
    if (inputs.dataset) {
      const entries = inputs.dataset.entries;
      const pick = entryPicker(entries.length, 'without_replacement', stream(w, 'calibration_sample'));
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

export interface CalibrationTarget {
  /** OpenAI base URL, e.g. http://host:8000/v1; `/tokenize` lives at its root. */
  baseUrl: string;
  api: 'chat' | 'completions';
  model: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** Counts the prompt tokens a request with these messages has on the target. */
type CountTokens = (messages: Message[]) => Promise<number>;

export interface Counter {
  method: 'tokenize' | 'probe';
  source: string;
  count: CountTokens;
}

/** Word counts of the calibration prompts: spread out so the slope is well determined, small enough for any context window. */
const SIZES = [16, 64, 256, 1024];
/** Word counts of the prompts that measure a prefix (the slope is known by then). */
const PREFIX_SIZES = [16, 256];
/** Tokenize endpoints answer in milliseconds; a target without one must not stall the start for a whole request timeout. */
const TOKENIZE_TIMEOUT_MS = 10_000;
const tokenizeTimeout = (t: CalibrationTarget) => Math.min(t.timeoutMs, TOKENIZE_TIMEOUT_MS);

export const ONE_TOKEN_PER_WORD = "assumed one token per word (the simulator's rule)";

export function uncalibrated(source = ONE_TOKEN_PER_WORD): Calibration {
  return { method: 'off', source, tokens_per_word: 1, overhead_tokens: 0, prefix_tokens: 0, samples: 0, max_residual_tokens: 0 };
}

/** The first counter `mode` allows that answers, or why none did (only `auto` gets a reason; explicit modes throw). */
export async function findCounter(mode: Exclude<CalibrateMode, 'off'>, t: CalibrationTarget): Promise<Counter | { failed: string }> {
  const probeMessage: Message[] = [{ role: 'user', content: 'how many tokens is this' }];
  const reasons: string[] = [];
  const candidates = [...(mode === 'probe' ? [] : [vllmTokenize(t), llamaTokenize(t)]), ...(mode === 'tokenize' ? [] : [probe(t)])];
  for (const counter of candidates) {
    try {
      if ((await counter.count(probeMessage)) > 0) return counter;
      reasons.push(`${counter.source}: counted 0 tokens`);
    } catch (err) {
      reasons.push(`${counter.source}: ${(err as Error).message}`);
    }
  }
  const why = reasons.join('; ');
  if (mode === 'tokenize')
    throw new Error(
      `workload.calibrate is tokenize, but the target has no usable tokenize endpoint (${why}); expected a vLLM, SGLang or llama.cpp server, or calibrate: probe`,
    );
  if (mode === 'probe')
    throw new Error(
      `workload.calibrate is probe, but the probe failed (${why}); expected usage.prompt_tokens in the answer, or calibrate: off`,
    );
  return { failed: why };
}

/**
 * Fits the line on prompts built by `plain(words)`, then, when the workload has a prefix,
 * measures what `prefixed(words, tokensPerWord)` adds: the prefix is sized with the slope,
 * so it needs the first fit.
 */
export async function calibrateSynthetic(
  counter: Counter,
  plain: (words: number) => Message[],
  prefixed?: (words: number, tokensPerWord: number) => Message[],
): Promise<Calibration> {
  const points = await countAll(counter, SIZES.map(plain));
  const fit = fitLine(points);
  if (!prefixed) return result(counter, fit, points.length, 0);
  // What the line does not explain is the prefix's (its words and the system message's template).
  const withPrefix = await countAll(
    counter,
    PREFIX_SIZES.map((w) => prefixed(w, fit.slope)),
  );
  const prefixTokens = mean(withPrefix.map((p, i) => p.tokens - fit.intercept - fit.slope * PREFIX_SIZES[i]));
  return result(counter, fit, points.length + withPrefix.length, prefixTokens);
}

/**
 * A dataset's text is not our filler, so its tokens per word are its own: the request
 * overhead comes from filler prompts (`plain`), the ratio from a sample of the dataset's
 * prompts, as Σ(tokens − overhead) / Σ words — a ratio estimator, steadier than a second
 * regression on texts of similar lengths.
 */
export async function calibrateDataset(counter: Counter, plain: (words: number) => Message[], sample: Message[][]): Promise<Calibration> {
  const points = await countAll(counter, SIZES.map(plain));
  const fit = fitLine(points);
  const texts = await countAll(counter, sample);
  const words = texts.reduce((a, p) => a + p.words, 0);
  const slope = words > 0 ? texts.reduce((a, p) => a + p.tokens - fit.intercept, 0) / words : fit.slope;
  const residual = maxOf(texts.map((p) => Math.abs(fit.intercept + slope * p.words - p.tokens)));
  return result(counter, { slope, intercept: fit.intercept, maxResidual: residual }, points.length + texts.length, 0);
}

function result(counter: Counter, fit: Line, samples: number, prefixTokens: number): Calibration {
  return {
    method: counter.method,
    source: counter.source,
    tokens_per_word: round3(fit.slope),
    overhead_tokens: round3(fit.intercept),
    prefix_tokens: round3(prefixTokens),
    samples,
    max_residual_tokens: round3(fit.maxResidual),
  };
}

interface Point {
  words: number;
  tokens: number;
}

async function countAll(counter: Counter, prompts: Message[][]): Promise<Point[]> {
  const points: Point[] = [];
  for (const messages of prompts) points.push({ words: countWords(promptText(messages)), tokens: await counter.count(messages) });
  return points;
}

interface Line {
  slope: number;
  intercept: number;
  maxResidual: number;
}

/** Ordinary least squares of tokens on words. */
export function fitLine(points: Point[]): Line {
  const mx = mean(points.map((p) => p.words));
  const my = mean(points.map((p) => p.tokens));
  const sxx = points.reduce((a, p) => a + (p.words - mx) ** 2, 0);
  const sxy = points.reduce((a, p) => a + (p.words - mx) * (p.tokens - my), 0);
  const slope = sxx > 0 ? sxy / sxx : my / mx;
  const intercept = my - slope * mx;
  return { slope, intercept, maxResidual: maxOf(points.map((p) => Math.abs(intercept + slope * p.words - p.tokens))) };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** `/tokenize` and `/apply-template` live at the server's root, beside `/v1`. */
const rootOf = (baseUrl: string) => baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');

function vllmTokenize(t: CalibrationTarget): Counter {
  const url = `${rootOf(t.baseUrl)}/tokenize`;
  return {
    method: 'tokenize',
    source: 'POST /tokenize (vLLM-style)',
    async count(messages) {
      const body = t.api === 'chat' ? { model: t.model, messages } : { model: t.model, prompt: promptText(messages) };
      const r = (await postJson(url, body, t, tokenizeTimeout(t))) as { count?: unknown; tokens?: unknown };
      if (typeof r.count === 'number') return r.count;
      if (Array.isArray(r.tokens)) return r.tokens.length;
      throw new Error('answered without count or tokens');
    },
  };
}

/** llama.cpp's server tokenizes raw text only; for chat it first renders the template with /apply-template. */
function llamaTokenize(t: CalibrationTarget): Counter {
  const root = rootOf(t.baseUrl);
  return {
    method: 'tokenize',
    source: t.api === 'chat' ? 'POST /apply-template + /tokenize (llama.cpp-style)' : 'POST /tokenize (llama.cpp-style)',
    async count(messages) {
      let content = promptText(messages);
      if (t.api === 'chat') {
        const rendered = (await postJson(`${root}/apply-template`, { messages }, t, tokenizeTimeout(t))) as { prompt?: unknown };
        if (typeof rendered.prompt !== 'string') throw new Error('/apply-template answered without a prompt');
        content = rendered.prompt;
      }
      const r = (await postJson(`${root}/tokenize`, { content, add_special: true, parse_special: true }, t, tokenizeTimeout(t))) as {
        tokens?: unknown;
      };
      if (!Array.isArray(r.tokens)) throw new Error('answered without tokens');
      return r.tokens.length;
    },
  };
}

function probe(t: CalibrationTarget): Counter {
  const url = `${t.baseUrl.replace(/\/+$/, '')}${t.api === 'chat' ? '/chat/completions' : '/completions'}`;
  return {
    method: 'probe',
    source: 'usage.prompt_tokens of 1-token requests',
    async count(messages) {
      const body = t.api === 'chat' ? { model: t.model, messages } : { model: t.model, prompt: promptText(messages) };
      const r = (await postJson(url, { ...body, max_tokens: 1, stream: false }, t, t.timeoutMs)) as { usage?: { prompt_tokens?: unknown } };
      const n = r.usage?.prompt_tokens;
      if (typeof n !== 'number') throw new Error('a 1-token request answered without usage.prompt_tokens');
      return n;
    },
  };
}

/**
 * POSTs JSON and returns the parsed answer; a non-2xx status or a non-JSON body is an error
 * naming what came back. A 2xx answer that is not JSON (say, an event stream from a server that
 * streams whatever it is asked) is dropped at its headers, so probing costs a round trip.
 */
async function postJson(url: string, body: unknown, t: CalibrationTarget, timeoutMs: number): Promise<Record<string, unknown>> {
  const res = await request(url, {
    method: 'POST',
    headers: { ...t.headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode >= 200 && res.statusCode < 300 && !type.includes('json')) {
    res.body.on('error', () => {}).destroy(); // the abort it reports is ours
    throw new Error(`answered with ${type || 'no content-type'}, not JSON`);
  }
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const detail = errorMessage(parsed);
    throw new Error(`HTTP ${res.statusCode}${detail ? ` (${detail.slice(0, 120)})` : ''}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('answered with something other than a JSON object');
  return parsed as Record<string, unknown>;
}
