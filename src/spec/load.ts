import { dirname } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { SpecError, SpecIssue } from './error.js';
import { bytes, MAX_SPEC_BYTES } from './limits.js';
import { readFileCapped, ReadFileError } from './read-file.js';
import { ENV_REFERENCE, resolveSpec } from './resolve.js';
import type { ResolvedSpec } from './types.js';
import { headerProblem } from './headers.js';

export { SpecError } from './error.js';

type Env = Record<string, string | undefined>;

/** Reads, validates and resolves a YAML spec file; every problem is a one-line SpecError naming the file. */
export function readSpec(path: string, env: Env = process.env): ResolvedSpec {
  let text: string;
  try {
    text = readFileCapped(path, MAX_SPEC_BYTES);
  } catch (err) {
    if (!(err instanceof ReadFileError)) throw err;
    throw new SpecError(
      err.tooLarge
        ? `${path}: ${err.reason}; expected a YAML spec of at most ${bytes(MAX_SPEC_BYTES)} (prompts and lengths belong in the dataset and length files it names)`
        : `${path}: ${err.reason}; expected a readable YAML spec file`,
    );
  }
  return parseSpec(text, path, env);
}

/** As readSpec, for YAML already in memory; `sourceName` is what messages call it. */
export function parseSpec(text: string, sourceName: string, env: Env = process.env): ResolvedSpec {
  const data = parseYaml(text, sourceName);
  let resolved: Omit<ResolvedSpec, 'apiKey' | 'headers'>;
  try {
    resolved = resolveSpec(data);
  } catch (err) {
    if (err instanceof SpecIssue) throw new SpecError(`${sourceName}: ${err.message}`);
    throw err;
  }
  const apiKey = readApiKey(resolved.spec.target.api_key_env, env, sourceName);
  const headers = expandHeaders(resolved.spec.target.headers, env, sourceName);
  // Relative paths in the spec (dataset, length files) are read from the spec's directory.
  const located = { ...resolved, headers, specDir: dirname(sourceName) };
  return apiKey === undefined ? located : { ...located, apiKey };
}

function expandHeaders(headers: Record<string, string>, env: Env, sourceName: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, template] of Object.entries(headers)) {
    out[name] = template.replace(ENV_REFERENCE, (_, variable: string) => {
      const value = env[variable];
      if (!value) {
        throw new SpecError(
          `${sourceName}: target.headers.${name} refers to \${${variable}}, which is ${value === '' ? 'set but empty' : 'not set in the environment'}; export it or remove the header`,
        );
      }
      return value;
    });
    const problem = headerProblem(name, out[name]);
    if (problem !== null) throw new SpecError(`${sourceName}: target.headers.${name}, once filled from the environment, ${problem}`);
  }
  return out;
}

function parseYaml(text: string, sourceName: string): unknown {
  const lineCounter = new LineCounter();
  // prettyErrors off: we want yaml's bare reason, not its multi-line excerpt.
  // logLevel error: a warning (e.g. a mapping used as a key) must not print to stderr; the schema then names the key.
  const doc = parseDocument(text, { prettyErrors: false, lineCounter, logLevel: 'error' });
  const [error] = doc.errors;
  if (error) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw new SpecError(`${sourceName}:${line}:${col}: YAML syntax error: ${oneLine(error.message)}`);
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (err) {
    // e.g. an alias to an undefined anchor: well-formed YAML that still has no value.
    throw new SpecError(`${sourceName}: YAML error: ${oneLine((err as Error).message)}`);
  }
  if (data === null || data === undefined) {
    throw new SpecError(`${sourceName}: the file is empty; expected a YAML mapping with at least target.url`);
  }
  if (depthOf(data, 0) > MAX_DEPTH)
    throw new SpecError(
      `${sourceName}: nests deeper than ${MAX_DEPTH} levels (an alias that contains itself?); expected a spec a few levels deep`,
    );
  return data;
}

/** Deeper than any spec; a YAML alias that contains itself makes an endless value, which every later walk would recurse into. */
const MAX_DEPTH = 64;

/** How deep `value` nests, counting no further than just past MAX_DEPTH. */
function depthOf(value: unknown, depth: number): number {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return depth;
  let deepest = depth;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(child, depth + 1));
    if (deepest > MAX_DEPTH) break;
  }
  return deepest;
}

/** The key's value stays out of every message; only the variable's name is quoted. */
function readApiKey(name: string | undefined, env: Env, sourceName: string): string | undefined {
  if (name === undefined) return undefined;
  const value = env[name];
  if (value === undefined) {
    throw new SpecError(
      `${sourceName}: target.api_key_env names ${name}, which is not set in the environment; export it or remove api_key_env`,
    );
  }
  // CI systems pass unavailable secrets (e.g. on fork pull requests) as empty strings.
  if (value === '') {
    throw new SpecError(`${sourceName}: target.api_key_env names ${name}, which is set but empty; export the key or remove api_key_env`);
  }
  return value;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ').trim();
