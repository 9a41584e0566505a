import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { SpecError } from '../spec/error.js';
import { bytes, figure, MAX_DATASET_BYTES, MAX_LENGTH_FILE_BYTES, MAX_LENGTH_FILE_LINES } from '../spec/limits.js';
import { readFileCapped, ReadFileError, type ReadCaps } from '../spec/read-file.js';
import type { LengthDist, ResolvedSpec, Spec } from '../spec/types.js';
import { parseDataset, type Dataset } from './dataset.js';
import { parseLengthFile, type LengthSource } from './lengths.js';
import { parseTrace, type TraceEntry } from './trace-file.js';

/** The spec's workload with every file it names read: what a run needs before it meets the target. */
export interface WorkloadInputs {
  spec: Spec;
  /** Null with a dataset. */
  input: LengthSource | null;
  output: LengthSource;
  dataset: Dataset | null;
  /** A replayed trace's arrivals (workload.trace), sorted by time; null without one. */
  trace: TraceEntry[] | null;
  files: Record<string, string>;
}

/** The files the workload names, as paths to read (relative to the spec's folder), each with the key that names it. */
export function workloadFilePaths(resolved: Pick<ResolvedSpec, 'spec' | 'specDir'>): { path: string; what: string }[] {
  const w = resolved.spec.workload;
  const at = (p: string) => resolve(resolved.specDir ?? '.', p);
  const named: { path: string; what: string }[] = [];
  if (w.dataset) named.push({ path: at(w.dataset.path), what: 'workload.dataset.path' });
  for (const key of ['input_tokens', 'output_tokens'] as const) {
    const d = w[key];
    if (d && 'file' in d) named.push({ path: at(d.file), what: `workload.${key}.file` });
  }
  return named;
}

/**
 * Reads the files the workload names (length files, dataset), relative to the spec's directory,
 * and checks them. No network, so `loadgate validate` can call it too; a bad file is a
 * one-line SpecError naming the file and line.
 */
export function loadWorkloadInputs(resolved: Pick<ResolvedSpec, 'spec' | 'specDir'>): WorkloadInputs {
  const { spec, specDir } = resolved;
  const files: Record<string, string> = {};
  const read = (key: string, path: string, maxBytes: number, caps: ReadCaps = {}): string => {
    let text: string;
    const at = resolve(specDir ?? '.', path);
    try {
      text = readFileCapped(at, maxBytes, caps);
    } catch (err) {
      if (!(err instanceof ReadFileError)) throw err;
      throw new SpecError(
        err.tooLarge
          ? `workload.${key} ${at}: ${err.reason}; expected at most ${bytes(maxBytes)}${caps.maxLines ? ` and ${figure(caps.maxLines)} lines` : ''}`
          : `workload.${key} ${at === path ? path : `${JSON.stringify(path)} (${at})`}: ${err.reason}; expected a readable regular file, the path relative to the spec file`,
      );
    }
    files[path] = createHash('sha256').update(text).digest('hex');
    return text;
  };
  const source = (key: string, d: LengthDist): LengthSource =>
    'file' in d
      ? {
          dist: 'empirical',
          ...parseLengthFile(read(`${key}.file`, d.file, MAX_LENGTH_FILE_BYTES, { maxLines: MAX_LENGTH_FILE_LINES }), d.file),
        }
      : d;
  const w = spec.workload;
  return {
    spec,
    input: w.input_tokens ? source('input_tokens', w.input_tokens) : null,
    output: source('output_tokens', w.output_tokens),
    dataset: w.dataset ? parseDataset(read('dataset.path', w.dataset.path, MAX_DATASET_BYTES), w.dataset.path, w.dataset.format) : null,
    trace: w.trace ? parseTrace(read('trace.file', w.trace.file, MAX_DATASET_BYTES), w.trace.file, w.trace.format) : null,
    files,
  };
}
