import { compileOnFirstUse } from './compile-on-use.js';
import { durationField } from './duration-field.js';
import { SpecIssue } from './error.js';
import { specHash } from './hash.js';
import { resolvePattern } from './pattern.js';
import { issueFromErrors, show, showKey } from './messages.js';
import { figure, MAX_SCHEDULED_REQUESTS } from './limits.js';
import { specSchema } from './schema.js';
import { isCredentialProblem, targetUrlProblem } from './url.js';
import { metricsHostAllowed, metricsHostMessage } from './metrics-host.js';
import type { LengthDist, ResolvedPattern, ResolvedSpec, Spec } from './types.js';
import { checkSweep, expandSweepShorthand } from './sweep-schema.js';
import { checkConversationsAndTraces } from './sessions-trace.js';
import { maxOf } from '../numbers.js';
import { headerProblem } from './headers.js';

// verbose: messages quote the offending value and the schema's description.
const validate = compileOnFirstUse<Spec>('spec', () => ({
  options: { allErrors: true, useDefaults: true, verbose: true, strict: true },
  schema: specSchema,
}));

/**
 * Parsed YAML (or an edited Spec) → a ResolvedSpec without its API key: shorthand expanded,
 * defaults filled, cross-field rules checked, durations in ms, hash computed.
 * Throws a SpecIssue for the first problem. The key is left out because it depends on the environment.
 */
export function resolveSpec(data: unknown): Omit<ResolvedSpec, 'apiKey' | 'headers'> {
  const spec = structuredClone(data); // ajv fills defaults in place; the caller's object stays as written
  expandLengthShorthand(spec);
  expandSweepShorthand(spec);
  const written = writtenWorkloadKeys(spec); // before ajv fills defaults
  if (!validate()(spec)) throw issueFromErrors(validate().errors ?? [], spec);

  // The TTFT SLO rule defaults to the spec's own slo.ttft_ms, so the effective gate is explicit in the spec.
  spec.gate.slo.ttft_p95!.max_ms ??= spec.slo.ttft_ms;
  checkUrl(spec.target.url);
  checkNoLiteralCredentials(spec.target.headers);
  checkHeaders(spec.target.headers);
  checkMetricsUrl(spec.target);
  if (spec.workload.input_tokens) checkLength(['workload', 'input_tokens'], spec.workload.input_tokens);
  checkLength(['workload', 'output_tokens'], spec.workload.output_tokens);
  foldIgnoreEos(spec.workload, written);
  checkConversationsAndTraces(spec, written);
  checkWorkloadCombination(spec.workload, written);
  if (spec.sweep) checkSweep(spec.sweep);
  checkConcurrency(spec.load, spec.sweep?.concurrency);
  const steadyMs = durationField(['load', 'steady'], spec.load.steady, false);
  const resolved = {
    ...resolvePattern(spec.load, steadyMs),
    spec,
    hash: specHash(spec),
    requestTimeoutMs: durationField(['target', 'request_timeout'], spec.target.request_timeout, false),
    readyTimeoutMs: durationField(['target', 'ready_timeout'], spec.target.ready_timeout, false),
    warmupMs: durationField(['load', 'warmup'], spec.load.warmup, true),
    steadyMs,
    cooldownMs: durationField(['load', 'cooldown'], spec.load.cooldown, true),
    metricsIntervalMs:
      spec.target.metrics_interval === undefined
        ? 1000
        : durationField(['target', 'metrics_interval'], spec.target.metrics_interval, false),
  };
  checkScheduleSize(resolved);
  return resolved;
}

/** A closed loop above the in-flight cap would only drop the excess, as fast as it can: refused. */
function checkConcurrency(load: Spec['load'], sweepLevels: readonly number[] | undefined): void {
  const highest = (sweepLevels ?? []).reduce((a, b) => Math.max(a, b), load.mode === 'closed' ? load.concurrency : 0);
  if (highest <= load.max_in_flight) return;
  const where = load.mode === 'closed' && load.concurrency === highest ? ['load', 'concurrency'] : ['sweep', 'concurrency'];
  throw new SpecIssue(
    where,
    `${where[0] === 'load' ? 'is' : 'reaches'} ${figure(highest)}, above load.max_in_flight (${figure(load.max_in_flight)}); expected at most load.max_in_flight requests in flight, or a higher max_in_flight`,
  );
}

/**
 * An open-loop run schedules its requests up front: at most peak rate × (warmup + steady +
 * cooldown), the peak being load.rate or the highest rate of load.pattern (the Poisson count
 * is random around its mean; the schedule is sized for it). Past the stated maximum, the run
 * could not hold its schedule and records. A closed loop schedules as it goes, bounded by its
 * duration.
 */
function checkScheduleSize(r: { spec: Spec; warmupMs: number; steadyMs: number; cooldownMs: number; pattern?: ResolvedPattern }): void {
  if (r.spec.load.mode !== 'open') return;
  const totalMs = r.warmupMs + r.steadyMs + r.cooldownMs;
  const { rate } = r.spec.load;
  const p = r.pattern;
  const peak =
    p?.kind === 'ramp'
      ? Math.max(rate, p.from, p.to)
      : p?.kind === 'spike'
        ? rate * p.multiplier
        : p?.kind === 'steps'
          ? maxOf(p.rates, rate)
          : rate;
  const expected = (peak * totalMs) / 1000;
  if (expected <= MAX_SCHEDULED_REQUESTS) return;
  const what = peak === rate ? `is ${show(rate)} req/s` : `peaks at ${figure(peak)} req/s`;
  throw new SpecIssue(
    peak === rate ? ['load', 'rate'] : ['load', 'pattern'],
    `${what} over ${figure(totalMs / 1000)} s of warmup, steady and cooldown: ${figure(expected)} scheduled requests; expected at most ${figure(MAX_SCHEDULED_REQUESTS)} per run (lower the rate or shorten the run, or split it with --shard K/N)`,
  );
}

/** `input_tokens: 128` is shorthand for `{dist: fixed, value: 128}`; other values are left for the schema to reject. */
function expandLengthShorthand(data: unknown): void {
  const workload = isMapping(data) ? data['workload'] : undefined;
  if (!isMapping(workload)) return;
  for (const key of ['input_tokens', 'output_tokens']) {
    const n = workload[key];
    if (Number.isInteger(n) && (n as number) >= 1) workload[key] = { dist: 'fixed', value: n };
  }
  const sessions = workload['sessions'];
  if (isMapping(sessions) && Number.isInteger(sessions['turns']) && (sessions['turns'] as number) >= 1)
    sessions['turns'] = { dist: 'fixed', value: sessions['turns'] };
}

/** Workload keys the spec wrote itself, as opposed to defaults the schema filled in. */
function writtenWorkloadKeys(data: unknown): Set<string> {
  const workload = isMapping(data) ? data['workload'] : undefined;
  return new Set(isMapping(workload) ? Object.keys(workload) : []);
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkUrl(url: string): void {
  const problem = targetUrlProblem(url);
  if (problem === undefined) return;
  throw new SpecIssue(
    ['target', 'url'],
    isCredentialProblem(problem)
      ? `${problem}; expected a URL without them: put the key in an environment variable and name it in target.api_key_env`
      : `${problem}; expected http(s)://host[:port]/v1 or "sim"`,
  );
}

/** /metrics is read only from the target's host or a host the spec names (src/server/target.ts). */
function checkMetricsUrl(t: Spec['target']): void {
  const m = t.metrics_url;
  if (m === undefined || m === false) return;
  if ((m as unknown) === true)
    throw new SpecIssue(['target', 'metrics_url'], 'is true; expected an http(s) URL, or false to turn the server view off');
  if (!URL.canParse(m) || !['http:', 'https:'].includes(new URL(m).protocol))
    throw new SpecIssue(['target', 'metrics_url'], `${show(m)} is not an http(s) URL; expected e.g. http://host:8000/metrics, or false`);
  if (t.url === 'sim') return; // the sim's host is loopback, chosen at run time
  const url = new URL(m);
  const target = new URL(t.url);
  if (!metricsHostAllowed(url, target, t.metrics_allowed_hosts ?? []))
    throw new SpecIssue(['target', 'metrics_url'], metricsHostMessage(url.hostname, target.hostname));
}

const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|api-key|x-api-key|cookie)$/i;
/** Headers whose value is a credential by their name. */
export const isCredentialHeader = (name: string): boolean => CREDENTIAL_HEADER.test(name);
/** `${NAME}` in a header value is filled from the environment at load time, so the spec never holds the secret. */
export const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Each header as undici will check it; a `${VAR}` is checked again once filled (load.ts). */
function checkHeaders(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerProblem(name, value);
    if (problem !== null) throw new SpecIssue(['target', 'headers', showKey(name)], problem);
  }
}

/** A spec is committed, hashed and copied into results: a credential written into it would leak everywhere. */
function checkNoLiteralCredentials(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (CREDENTIAL_HEADER.test(name) && !/\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(value)) {
      throw new SpecIssue(
        ['target', 'headers', name],
        'holds a credential written into the spec; expected a reference such as "${MY_KEY}" to an environment variable, or target.api_key_env',
      );
    }
  }
}

/** The schema checks each key alone; which keys belong together, and the order of bounds, need all of them. */
function checkLength(path: string[], d: LengthDist): void {
  if (d.dist === 'uniform') checkForm(path, d, ['min', 'max'], ['mean', 'range_ratio']);
  if (d.dist === 'empirical') checkEmpirical(path, d);
  if ('min' in d && 'max' in d && d.min !== undefined && d.max !== undefined && d.min > d.max) {
    throw new SpecIssue(path, `has min ${d.min} > max ${d.max}; expected min ≤ max`);
  }
}

const KEY_EXPECTED: Record<string, string> = {
  min: 'a positive integer',
  max: 'a positive integer',
  mean: 'a number > 0',
  range_ratio: 'a number ≥ 0 and < 1',
};

/** Exactly one of two complete key sets, e.g. uniform's min/max or mean/range_ratio. */
function checkForm(path: string[], d: object, a: string[], b: string[]): void {
  const has = (keys: string[]) => keys.filter((k) => k in d);
  const [inA, inB] = [has(a), has(b)];
  const forms = `${a.join(' and ')}, or ${b.join(' and ')}`;
  if (inA.length > 0 && inB.length > 0) throw new SpecIssue(path, `has both ${a.join('/')} and ${b.join('/')}; expected ${forms}`);
  if (inA.length === 0 && inB.length === 0) throw new SpecIssue(path, `has neither ${a.join('/')} nor ${b.join('/')}; expected ${forms}`);
  const form = inA.length > 0 ? a : b;
  const missing = form.find((k) => !(k in d));
  if (missing) throw new SpecIssue([...path, missing], `is missing; expected ${KEY_EXPECTED[missing]}`);
}

function checkEmpirical(path: string[], d: Extract<LengthDist, { dist: 'empirical' }>): void {
  const hasValues = 'values' in d;
  if (hasValues === 'file' in d)
    throw new SpecIssue(path, `has ${hasValues ? 'both' : 'neither'} values ${hasValues ? 'and' : 'nor'} file; expected one of them`);
  if (!hasValues) {
    if ('weights' in d)
      throw new SpecIssue([...path, 'weights'], 'is given with file; expected weights only beside values (a file holds its own counts)');
    return;
  }
  const { values, weights } = d;
  if (weights === undefined) return;
  if (weights.length !== values.length)
    throw new SpecIssue([...path, 'weights'], `has ${weights.length} entries for ${values.length} values; expected one weight per value`);
  if (!weights.some((w) => w > 0)) throw new SpecIssue([...path, 'weights'], 'are all 0; expected at least one weight > 0');
}

/** `ignore_eos: true|false` is the older spelling of `output_control: ignore_eos|none`; the resolved spec has only output_control. */
function foldIgnoreEos(w: Spec['workload'] & { ignore_eos?: boolean }, written: Set<string>): void {
  if (w.ignore_eos === undefined) return;
  if (written.has('output_control')) {
    throw new SpecIssue(
      ['workload', 'ignore_eos'],
      'is given with output_control; expected only output_control (ignore_eos: true is output_control: ignore_eos)',
    );
  }
  w.output_control = w.ignore_eos ? 'ignore_eos' : 'none';
  delete w.ignore_eos;
}

/**
 * A dataset brings its own prompts, so synthetic-prompt settings beside it would be silently
 * ignored; the input_tokens default is dropped, so the resolved spec says what was used.
 */
function checkWorkloadCombination(w: Spec['workload'], written: Set<string>): void {
  if (w.dataset) {
    for (const key of ['input_tokens', 'prefix', 'prefix_groups']) {
      if (written.has(key))
        throw new SpecIssue(['workload', key], 'is given with dataset; expected one or the other (a dataset brings its own prompts)');
    }
    delete w.input_tokens;
    return;
  }
  if (!w.input_tokens) return; // a trace brings its own lengths
  const prefixTokens = (w.prefix?.shared_tokens ?? 0) + (w.prefix_groups?.tokens ?? 0);
  const mean = meanLength(w.input_tokens);
  if (prefixTokens > 0 && mean !== undefined && prefixTokens >= mean) {
    const key = w.prefix ? 'prefix' : 'prefix_groups';
    throw new SpecIssue(
      ['workload', key],
      `makes ${prefixTokens} prefix tokens, not fewer than the mean input length (${round(mean)}); expected a prefix shorter than input_tokens, which includes it`,
    );
  }
}

/** The distribution's mean where the spec alone gives it (not for a length file). Clipping is ignored: this is a sanity check. */
function meanLength(d: LengthDist): number | undefined {
  if (d.dist === 'fixed') return d.value;
  if (d.dist === 'uniform') return 'mean' in d ? d.mean : (d.min + d.max) / 2;
  if (d.dist === 'empirical') {
    if (!('values' in d)) return undefined;
    const weights = d.weights ?? d.values.map(() => 1);
    return d.values.reduce((a, v, i) => a + v * weights[i], 0) / weights.reduce((a, b) => a + b, 0);
  }
  return d.mean;
}

const round = (x: number) => Math.round(x * 10) / 10;
