import { relative, resolve, sep } from 'node:path';
import { parseDuration } from '../spec/duration.js';
import { isCredentialProblem, targetUrlProblem } from '../spec/url.js';
import { readHistoryInputs, type HistoryInputs } from './history-inputs.js';

/** A problem with the workflow's inputs: one line that names the input and what it expects. */
export class InputError extends Error {}

export type Mode = 'gate' | 'record' | 'report' | 'sweep';
export type CommentPolicy = 'always' | 'on-change' | 'on-failure' | 'never';
export type FailOn = 'fail' | 'inconclusive' | 'never';
export type OnMissingBaseline = 'warn' | 'fail' | 'pass';

export interface ActionInputs {
  /** Path of the benchmark spec; empty only with result or commentFrom. */
  spec: string;
  /** An existing result to judge instead of running the benchmark (e.g. merged matrix shards). */
  result?: string;
  targetUrl?: string;
  apiKey?: string;
  mode: Mode;
  baseline?: string;
  baselineArtifact?: string;
  baselineWorkflow?: string;
  baselineMaxAgeMs: number;
  githubToken?: string;
  comment: CommentPolicy;
  /** Undefined only with commentFrom and no comment-id: the handoff file then names it. */
  commentId?: string;
  /** A handoff file from an earlier run (fork pull requests): post its comment, run nothing. */
  commentFrom?: string;
  failOn: FailOn;
  onMissingBaseline: OnMissingBaseline;
  waitForReadyMs?: number;
  replicates: number;
  /** A calibration file (loadgate calibrate) whose between-run CVs widen the comparison. */
  calibration?: string;
  workingDirectory: string;
  /** Hosts the API key may be sent to; undefined: the spec's own target host. */
  allowedHosts?: string[];
  /** Interleaved A/B: the baseline deployment, measured in the same window as the target. */
  baselineUrl?: string;
  resultPath: string;
  reportPath: string;
  /** A nightly history to append to and check (history-inputs.ts); undefined without input history. */
  history?: HistoryInputs;
}

/**
 * Defaults of the inputs that have one. action.yml states the same values (a test checks they
 * agree); the runner fills them in, and these cover a run without it.
 */
export const DEFAULTS = {
  mode: 'gate',
  comment: 'always',
  'fail-on': 'fail',
  'on-missing-baseline': 'warn',
  'baseline-max-age': '30d',
  replicates: '1',
  'working-directory': '.',
  'result-path': 'loadgate-result.json',
  'report-path': 'loadgate-report.md',
} as const;

type Get = (name: string) => string;

/** Reads and validates every input; `get` returns an input's trimmed value ('' when unset). */
export function readInputs(get: Get): ActionInputs {
  const opt = (name: string) => get(name) || undefined;
  const withDefault = (name: keyof typeof DEFAULTS) => get(name) || DEFAULTS[name];
  const baselineUrl = opt('baseline-url');
  if (baselineUrl !== undefined) {
    if (!/^https?:\/\/[^/]/.test(baselineUrl))
      throw new InputError(
        `input baseline-url is ${JSON.stringify(baselineUrl)}; expected http(s)://host[:port]/v1 of the baseline deployment`,
      );
    const other = ['baseline', 'baseline-artifact', 'result', 'comment-from'].find((name) => opt(name));
    if (other) throw new InputError(`inputs baseline-url and ${other} both give a baseline or a result; expected one of them`);
  }
  const commentFrom = opt('comment-from');
  const result = opt('result');
  const spec = get('spec');
  if (!spec && !commentFrom && !result) throw new InputError('input spec is required; expected the path of a benchmark spec (YAML)');
  const runs = replicates(withDefault('replicates'));
  const runOnly = ['target-url', 'api-key', 'wait-for-ready'].filter((name) => get(name)).concat(runs > 1 ? ['replicates'] : []);
  if (result && runOnly.length > 0)
    throw new InputError(
      `input result judges an existing result, but ${runOnly.join(', ')} only apply to a benchmark run; remove one or the other`,
    );
  const mode = oneOf('mode', withDefault('mode'), ['gate', 'record', 'report', 'sweep'] as const);
  const baseline = opt('baseline');
  const baselineArtifact = opt('baseline-artifact');
  if (mode === 'sweep') {
    const other = ['baseline-artifact', 'baseline-url', 'comment-from'].find((name) => opt(name));
    if (other)
      throw new InputError(
        `input ${other} does not apply to mode sweep; expected baseline: the path of a baseline sweep document (fetch it with actions/download-artifact first)`,
      );
  }
  if (mode !== 'record' && baseline && baselineArtifact) {
    throw new InputError(
      'inputs baseline and baseline-artifact are both set; expected one baseline source (a committed file or an artifact)',
    );
  }
  const targetUrl = opt('target-url');
  if (targetUrl) checkTargetUrl(targetUrl);
  const workingDirectory = withDefault('working-directory');
  const commentId = opt('comment-id');
  const waitForReady = opt('wait-for-ready');
  const allowed = opt('allowed-hosts');
  return {
    spec,
    result,
    targetUrl,
    apiKey: opt('api-key'),
    mode,
    baseline,
    baselineArtifact,
    baselineWorkflow: opt('baseline-workflow'),
    baselineMaxAgeMs: maxAge(withDefault('baseline-max-age')),
    githubToken: opt('github-token'),
    comment: oneOf('comment', withDefault('comment'), ['always', 'on-change', 'on-failure', 'never'] as const),
    commentId:
      commentId !== undefined
        ? checkCommentId(commentId)
        : spec || result
          ? commentIdOf(resolve(workingDirectory, spec || result!))
          : undefined,
    commentFrom,
    failOn: oneOf('fail-on', withDefault('fail-on'), ['fail', 'inconclusive', 'never'] as const),
    onMissingBaseline: oneOf('on-missing-baseline', withDefault('on-missing-baseline'), ['warn', 'fail', 'pass'] as const),
    waitForReadyMs: waitForReady === undefined ? undefined : duration('wait-for-ready', waitForReady),
    replicates: runs,
    calibration: opt('calibration'),
    workingDirectory,
    allowedHosts: allowed === undefined ? undefined : parseAllowedHosts(allowed),
    baselineUrl,
    resultPath: withDefault('result-path'),
    reportPath: withDefault('report-path'),
    history: readHistoryInputs(get),
  };
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const list = `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
  throw new InputError(`input ${name} is ${JSON.stringify(value)}; expected ${list}`);
}

function duration(name: string, text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    ms = NaN;
  }
  if (!(ms > 0)) throw new InputError(`input ${name} is ${JSON.stringify(text)}; expected a duration > 0 such as 90s or 5m`);
  return ms;
}

/** Like a duration, plus whole days (`30d`), the natural unit of a baseline's age. */
function maxAge(text: string): number {
  const days = /^(\d+(?:\.\d+)?)d$/.exec(text);
  if (days && Number(days[1]) > 0) return Number(days[1]) * 86_400_000;
  if (days) throw new InputError(`input baseline-max-age is ${JSON.stringify(text)}; expected a duration > 0 such as 30d, 12h or 90m`);
  try {
    return duration('baseline-max-age', text);
  } catch {
    throw new InputError(`input baseline-max-age is ${JSON.stringify(text)}; expected a duration > 0 such as 30d, 12h or 90m`);
  }
}

function replicates(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 100)
    throw new InputError(`input replicates is ${JSON.stringify(text)}; expected an integer from 1 to 100`);
  return n;
}

function checkTargetUrl(url: string): void {
  const problem = targetUrlProblem(url);
  if (problem === undefined) return;
  throw new InputError(
    isCredentialProblem(problem)
      ? `input target-url ${problem}; expected a URL without them (pass the key with api-key)`
      : `input target-url is ${JSON.stringify(url)}; expected an http(s) URL such as https://preview.example.com/v1, or "sim"`,
  );
}

/** Characters that can neither end the HTML comment of the marker (`--`) nor break its parsing. */
export const COMMENT_ID = /^(?!.*--)[A-Za-z0-9._/-]+$/;

function checkCommentId(id: string): string {
  if (!COMMENT_ID.test(id))
    throw new InputError(`input comment-id is ${JSON.stringify(id)}; expected letters, digits and single . _ / - only`);
  return id;
}

/**
 * The default id of the sticky comment's marker: the spec's path relative to the workspace,
 * so each spec of a matrix keeps its own comment.
 */
function commentIdOf(specPath: string): string {
  const path = relative(process.env.GITHUB_WORKSPACE ?? process.cwd(), specPath)
    .split(sep)
    .join('/');
  return path.replace(/[^A-Za-z0-9._/-]+/g, '-').replace(/-{2,}/g, '-') || 'default';
}

const HOST_PATTERN = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$|^\[?[0-9a-f:.]+\]?$/;

/** `api.example.com, *.preview.example.com` → lower-case hostnames (a leading `*.` matches any subdomain). */
function parseAllowedHosts(text: string): string[] {
  const hosts = text
    .split(/[\s,]+/)
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const bad = hosts.find((h) => !HOST_PATTERN.test(h));
  if (bad !== undefined)
    throw new InputError(
      `input allowed-hosts has ${JSON.stringify(bad)}; expected hostnames such as api.example.com or *.preview.example.com, separated by commas`,
    );
  return hosts.map((h) => h.replace(/^\[|\]$/g, ''));
}
