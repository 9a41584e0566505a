import { Ajv } from 'ajv';
import { parseDuration } from './duration.js';
import { SpecIssue } from './error.js';
import { specHash } from './hash.js';
import { issueFromErrors, show } from './messages.js';
import { specSchema } from './schema.js';
import type { LengthDist, ResolvedSpec, Spec } from './types.js';

// verbose: messages quote the offending value and the schema's description.
const validate = new Ajv({ allErrors: true, useDefaults: true, verbose: true, strict: true }).compile<Spec>(specSchema);

/**
 * Parsed YAML (or an edited Spec) → a ResolvedSpec without its API key: shorthand expanded,
 * defaults filled, cross-field rules checked, durations in ms, hash computed.
 * Throws a SpecIssue for the first problem. The key is left out because it depends on the environment.
 */
export function resolveSpec(data: unknown): Omit<ResolvedSpec, 'apiKey' | 'headers'> {
  const spec = structuredClone(data); // ajv fills defaults in place; the caller's object stays as written
  expandLengthShorthand(spec);
  if (!validate(spec)) throw issueFromErrors(validate.errors ?? [], spec);

  checkUrl(spec.target.url);
  checkNoLiteralCredentials(spec.target.headers);
  checkBounds(['workload', 'input_tokens'], spec.workload.input_tokens);
  checkBounds(['workload', 'output_tokens'], spec.workload.output_tokens);
  return {
    spec,
    hash: specHash(spec),
    requestTimeoutMs: durationMs(['target', 'request_timeout'], spec.target.request_timeout, false),
    readyTimeoutMs: durationMs(['target', 'ready_timeout'], spec.target.ready_timeout, false),
    warmupMs: durationMs(['load', 'warmup'], spec.load.warmup, true),
    steadyMs: durationMs(['load', 'steady'], spec.load.steady, false),
    cooldownMs: durationMs(['load', 'cooldown'], spec.load.cooldown, true),
  };
}

/** `input_tokens: 128` is shorthand for `{dist: fixed, value: 128}`; other values are left for the schema to reject. */
function expandLengthShorthand(data: unknown): void {
  const workload = isMapping(data) ? data['workload'] : undefined;
  if (!isMapping(workload)) return;
  for (const key of ['input_tokens', 'output_tokens']) {
    const n = workload[key];
    if (Number.isInteger(n) && (n as number) >= 1) workload[key] = { dist: 'fixed', value: n };
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkUrl(url: string): void {
  if (url === 'sim' || (URL.canParse(url) && ['http:', 'https:'].includes(new URL(url).protocol))) return;
  // `ftp://h` is a URL of the wrong kind; `htp:/x` or `host:8000/v1` parse as URLs but were not meant as any.
  const what = URL.canParse(url) && url.includes('://') ? 'an http(s) URL' : 'a URL';
  throw new SpecIssue(['target', 'url'], `${show(url)} is not ${what}; expected http(s)://host[:port]/v1 or "sim"`);
}

const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|api-key|x-api-key|cookie)$/i;
/** `${NAME}` in a header value is filled from the environment at load time, so the spec never holds the secret. */
export const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** A spec is committed, hashed and copied into results: a credential written into it would leak everywhere. */
function checkNoLiteralCredentials(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (CREDENTIAL_HEADER.test(name) && !/\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(value)) {
      throw new SpecIssue(['target', 'headers', name], 'holds a credential written into the spec; expected a reference such as "${MY_KEY}" to an environment variable, or target.api_key_env');
    }
  }
}

/** The schema checks each bound alone; their order needs both. */
function checkBounds(path: string[], d: LengthDist): void {
  if (d.dist === 'fixed' || d.min === undefined || d.max === undefined || d.min <= d.max) return;
  throw new SpecIssue(path, `has min ${d.min} > max ${d.max}; expected min ≤ max`);
}

function durationMs(path: string[], text: string, zeroAllowed: boolean): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new SpecIssue(path, (err as Error).message);
  }
  if (ms === 0 && !zeroAllowed) throw new SpecIssue(path, `is ${show(text)}; expected a duration > 0`);
  return ms;
}
