import { round3 } from '../numbers.js';
import { Dict, Type, type Static } from '../json-schema.js';
import { compileOnFirstUse } from '../spec/compile-on-use.js';
import type { Result } from '../result/types.js';
import { bytes, MAX_SPEC_BYTES } from '../spec/limits.js';
import { readFileCapped, ReadFileError } from '../spec/read-file.js';

/*
 * A calibration file (loadgate calibrate): the between-run coefficient of variation of every
 * metric the gate judges, measured from N short A/A replicates against the target. A baseline
 * recorded once, or a pull request's single run, cannot see how much the deployment drifts from
 * one run to the next; this file tells the gate, so that spread widens both sides of every
 * comparison (src/gate/noise.ts) and an unstable environment is named rather than blamed on the
 * change under test.
 */

export const CALIBRATION_KIND = 'loadgate-calibration';
export const CALIBRATION_VERSION = 1;

/** The file's JSON Schema, written once: its Static is CalibrationFile. */
export const calibrationSchema = Type.Object(
  {
    kind: Type.Literal(CALIBRATION_KIND),
    version: Type.Literal(CALIBRATION_VERSION),
    created_at: Type.String(),
    spec_name: Type.String(),
    spec_hash: Type.String(),
    target: Type.Object({ url: Type.String(), model: Type.String() }),
    /** A/A runs measured. */
    replicates: Type.Integer({ minimum: 2 }),
    /** Steady window of each, seconds. */
    window_s: Type.Number({ minimum: 0 }),
    /** Sample CV (sd / mean, n − 1) per metric key: "ttft_ms.p95", "throughput.output_tokens_per_s", … */
    cv: Dict(Type.Number({ minimum: 0 })),
  },
  { $schema: 'http://json-schema.org/draft-07/schema#' },
);
export type CalibrationFile = Static<typeof calibrationSchema>;

const validate = compileOnFirstUse<CalibrationFile>('calibration', () => ({
  options: { allErrors: false, strict: true },
  schema: calibrationSchema,
}));

export class CalibrationError extends Error {}

/** Reads and checks a calibration file; every problem is one line naming the file. */
export function loadCalibration(path: string): CalibrationFile {
  let text: string;
  try {
    text = readFileCapped(path, MAX_SPEC_BYTES);
  } catch (err) {
    if (!(err instanceof ReadFileError)) throw err;
    throw new CalibrationError(
      `calibration file ${path}: ${err.reason}; ${err.tooLarge ? `expected a calibration of at most ${bytes(MAX_SPEC_BYTES)}` : `write one with loadgate calibrate SPEC --out ${path}`}`,
    );
  }
  return parseCalibration(text, path);
}

/** Checks a calibration document's text; `name` says where it came from in the message. */
export function parseCalibration(text: string, name: string): CalibrationFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new CalibrationError(`calibration file ${name}: not JSON; write one with loadgate calibrate`);
  }
  if (!validate()(doc)) {
    const e = validate().errors![0];
    throw new CalibrationError(
      `calibration file ${name}: ${e.instancePath.slice(1).replace(/\//g, '.') || 'the document'} ${e.message}; expected a file written by loadgate calibrate`,
    );
  }
  return doc;
}

/** The calibration a comparison uses: the --calibration (or action input) path, else the gate's gate.calibration; null when neither. */
export function calibrationFor(gate: { calibration?: string }, override?: string): CalibrationFile | null {
  const path = override ?? gate.calibration;
  return path === undefined ? null : loadCalibration(path);
}

/** The calibration of a merged replicate set (result.replicates carries the CVs). */
export function calibrationFrom(merged: Result): CalibrationFile {
  if (!merged.replicates) throw new CalibrationError('calibration needs at least 2 replicates; only one run was measured');
  return {
    kind: CALIBRATION_KIND,
    version: CALIBRATION_VERSION,
    created_at: new Date().toISOString(),
    spec_name: merged.spec.name,
    spec_hash: merged.spec_hash,
    target: { url: merged.target.url, model: merged.target.model },
    replicates: merged.replicates.count,
    window_s: round3(merged.load.window_s / merged.replicates.count),
    cv: merged.replicates.cv,
  };
}
