import { compileOnFirstUse } from '../spec/compile-on-use.js';
import { OUTCOMES } from '../client/types.js';
import { bytes, MAX_RESULT_BYTES } from '../spec/limits.js';
import { jsonProblem, readFileCapped, ReadFileError } from '../spec/read-file.js';
import { show } from '../spec/messages.js';
import { decodeHistogram } from '../metrics/histogram.js';
import { resultSchema } from './schema.js';
import { RESULT_SCHEMA_VERSION } from './types.js';
import type { Result } from './types.js';

/** A result file that cannot be used, said in one line that names the file. */
export class ResultFileError extends Error {}

const validate = compileOnFirstUse('result', () => ({ options: { allErrors: false, strict: true }, schema: resultSchema }));

/** Reads and validates a result.json (a run's result, a merge, or a baseline). */
export function readResult(path: string): Result {
  let text: string;
  try {
    text = readFileCapped(path, MAX_RESULT_BYTES);
  } catch (err) {
    if (!(err instanceof ReadFileError)) throw err;
    if (err.tooLarge) throw new ResultFileError(`${path}: ${err.reason}; expected a loadgate result of at most ${bytes(MAX_RESULT_BYTES)}`);
    throw new ResultFileError(`${path}: ${err.reason === 'is a directory' ? 'is a directory, not a result file' : err.reason}`);
  }
  return parseResult(text, path);
}

/** As readResult, for text already in memory; `name` is what messages call it. */
export function parseResult(text: string, name: string): Result {
  const fail = (why: string) => new ResultFileError(`${name}: ${why}`);
  if (text.trim() === '') throw fail('the file is empty; expected a loadgate result (JSON)');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw fail(`not valid JSON (${jsonProblem(err, text)}); the file is truncated or corrupt`);
  }
  const version =
    data && typeof data === 'object' && !Array.isArray(data) ? (data as { schema_version?: unknown }).schema_version : undefined;
  if (version === undefined && isVllmFormat(data))
    throw fail(
      "is in vllm bench serve's format (loadgate run --format vllm), which holds no histograms and cannot be read back; expected a result written without --format vllm",
    );
  if (version === undefined) throw fail('not a loadgate result (no schema_version; note that --format vllm files cannot be read back)');
  if (typeof version !== 'number' || !Number.isInteger(version))
    throw fail(`schema_version is ${show(version)}, not an integer; the file is corrupt`);
  if (version > RESULT_SCHEMA_VERSION)
    throw fail(`schema_version ${version} is newer than this loadgate understands (${RESULT_SCHEMA_VERSION}); upgrade loadgate`);
  if (version < RESULT_SCHEMA_VERSION)
    throw fail(
      `schema_version ${version} is older than this loadgate understands (${RESULT_SCHEMA_VERSION}); re-run the benchmark to make a new baseline`,
    );
  if (!validate()(data)) {
    // Under anyOf (nullable fields) the deepest error names the actual problem, not "must be null".
    const e = validate().errors!.reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a));
    throw fail(`not a valid loadgate result: ${e.instancePath === '' ? 'the document' : e.instancePath} ${e.message}`);
  }
  const result = data as Result;
  // A class added since the file was written (`cancelled`) had no requests in it.
  for (const byClass of [result.requests.by_class, result.requests.window.by_class]) for (const o of OUTCOMES) byClass[o] ??= 0;
  for (const [key, encoded] of Object.entries(result.histograms)) {
    try {
      decodeHistogram(encoded);
    } catch {
      throw fail(`histogram "${key}" cannot be decoded; the file is corrupt`);
    }
  }
  return result;
}

/** The field names toVllmFormat writes (and vllm bench serve --save-result). */
function isVllmFormat(data: unknown): boolean {
  return data !== null && typeof data === 'object' && 'request_throughput' in data && ('model_id' in data || 'backend' in data);
}
