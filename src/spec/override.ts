import { SpecError, SpecIssue } from './error.js';
import { resolveSpec } from './resolve.js';
import { SIM_MODEL } from './schema.js';
import type { ResolvedSpec } from './types.js';

/**
 * Command-line overrides of a loaded spec. Numbers may arrive as the flag's raw text,
 * so a bad value is quoted as typed rather than as NaN.
 */
export interface Overrides {
  targetUrl?: string;
  rate?: number | string;
  steady?: string;
  warmup?: string;
  concurrency?: number | string;
  mode?: 'open' | 'closed';
}

/** Where each override lands in the spec, and the flag that error messages name. */
const FIELDS: Record<keyof Overrides, { section: 'target' | 'load'; key: string; flag: string; numeric?: true }> = {
  targetUrl: { section: 'target', key: 'url', flag: '--target-url' },
  rate: { section: 'load', key: 'rate', flag: '--rate', numeric: true },
  steady: { section: 'load', key: 'steady', flag: '--duration' },
  warmup: { section: 'load', key: 'warmup', flag: '--warmup' },
  concurrency: { section: 'load', key: 'concurrency', flag: '--concurrency', numeric: true },
  mode: { section: 'load', key: 'mode', flag: '--mode' },
};

/**
 * The spec with the overrides applied, re-validated by the same schema and rules as a file
 * (errors name the flag: `--rate is "x"; expected a number > 0`), with ms fields and hash recomputed.
 */
export function applyOverrides(r: ResolvedSpec, o: Overrides): ResolvedSpec {
  // Untyped on purpose: a bad override must reach the validator as given.
  const data = structuredClone(r.spec) as unknown as Record<string, Record<string, unknown>>;
  for (const [name, value] of Object.entries(o)) {
    const field = FIELDS[name as keyof Overrides];
    if (field && value !== undefined) data[field.section][field.key] = field.numeric ? numeric(value) : value;
  }
  // A spec written for the simulator carries its placeholder model, which no real server serves:
  // pointed at a real server, it names no model, and the run takes the one the server lists.
  if (r.spec.target.url === 'sim' && data.target.url !== 'sim' && data.target.model === SIM_MODEL) delete data.target.model;
  let resolved: Omit<ResolvedSpec, 'apiKey' | 'headers'>;
  try {
    resolved = resolveSpec(data);
  } catch (err) {
    if (!(err instanceof SpecIssue)) throw err;
    const where = err.path.join('.');
    const field = Object.values(FIELDS).find((f) => `${f.section}.${f.key}` === where);
    throw new SpecError(`${field?.flag ?? where} ${err.problem}`);
  }
  const kept = { ...resolved, headers: r.headers, specDir: r.specDir };
  return r.apiKey === undefined ? kept : { ...kept, apiKey: r.apiKey };
}

/** Flag text that reads as a number becomes one, so `--rate 5` and `rate: 5` validate alike. */
function numeric(value: unknown): unknown {
  if (typeof value !== 'string' || value.trim() === '') return value;
  const n = Number(value);
  return Number.isFinite(n) ? n : value;
}
