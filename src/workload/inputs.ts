import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SpecError } from '../spec/error.js';
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
    trace: w.trace ? parseTrace(read('trace.file', w.trace.file), w.trace.file, w.trace.format) : null,
    files,
  };
}
