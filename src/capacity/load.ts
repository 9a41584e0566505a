import { compileOnFirstUse } from '../spec/compile-on-use.js';
import { ResultFileError } from '../result/load.js';
import { bytes, MAX_RESULT_BYTES } from '../spec/limits.js';
import { jsonProblem, readFileCapped, ReadFileError } from '../spec/read-file.js';
import { SWEEP_KIND, SWEEP_SCHEMA_VERSION, type SweepDocument } from './document.js';
import { identifiedResultSchema, sweepSchema } from './schema.js';

const validate = compileOnFirstUse<SweepDocument>('sweep', () => ({
  options: { allErrors: false, strict: true },
  schema: sweepSchema,
  refs: [identifiedResultSchema],
}));

/** True when the parsed JSON says it is a sweep document (rather than a single result). */
export function isSweepDocument(data: unknown): boolean {
  return !!data && typeof data === 'object' && (data as { kind?: unknown }).kind === SWEEP_KIND;
}

/** Reads a JSON file for `report` and `compare`, which take results and sweeps alike; one-line errors name the file. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    // Capped like a result file: /dev/zero or a huge file fails in bounded memory.
    text = readFileCapped(path, MAX_RESULT_BYTES);
  } catch (err) {
    if (!(err instanceof ReadFileError)) throw err;
    throw new ResultFileError(
      err.tooLarge
        ? `${path}: ${err.reason}; expected a loadgate result or sweep of at most ${bytes(MAX_RESULT_BYTES)}`
        : `${path}: ${err.reason === 'is a directory' ? 'is a directory, not a result file' : err.reason}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ResultFileError(`${path}: not valid JSON (${jsonProblem(err, text)}); the file is truncated or corrupt`);
  }
}

/** Validates a parsed sweep document; `name` is what messages call it. */
export function parseSweep(data: unknown, name: string): SweepDocument {
  const fail = (why: string) => new ResultFileError(`${name}: ${why}`);
  if (!isSweepDocument(data)) throw fail(`not a loadgate sweep document (no kind "${SWEEP_KIND}"); expected the output of loadgate sweep`);
  const version = (data as { schema_version?: unknown }).schema_version;
  if (typeof version !== 'number' || version > SWEEP_SCHEMA_VERSION)
    throw fail(
      `sweep schema_version ${JSON.stringify(version)} is not one this loadgate understands (${SWEEP_SCHEMA_VERSION}); upgrade loadgate`,
    );
  if (!validate()(data)) {
    const e = validate().errors!.reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a));
    throw fail(`not a valid loadgate sweep: ${e.instancePath === '' ? 'the document' : e.instancePath} ${e.message}`);
  }
  return data;
}

export function readSweep(path: string): SweepDocument {
  return parseSweep(readJsonFile(path), path);
}
