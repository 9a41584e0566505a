/**
 * The result loader over thousands of generated inputs — arbitrary text, truncations
 * and structural edits of a real result (a value replaced, a key deleted, a histogram altered)
 * — answers with a result or one ResultFileError line naming the file, never another
 * exception, a stack trace or a hang.
 */
import fc from 'fast-check';
import { parseResult, ResultFileError } from '../../src/result/load.js';
import { synthesize } from './synthetic.js';
import { cpuMs } from '../fixtures/cpu-time.js';

const SEED = 16_11;
/** CPU time (cpuMs) for reading one result: far more than it takes; a hang shows here, not as a stuck run. */
const PER_INPUT_MS = 500;

function loadOrOneLine(text: string): void {
  const t0 = cpuMs();
  try {
    const r = parseResult(text, 'fuzz.json');
    expect(typeof r.schema_version).toBe('number');
  } catch (err) {
    if (!(err instanceof ResultFileError))
      throw new Error(`not a ResultFileError: ${String(err)} (${(err as Error).stack})`, { cause: err });
    expect(err.message).not.toMatch(/\n/);
    expect(err.message.startsWith('fuzz.json: ')).toBe(true);
  }
  expect(cpuMs() - t0).toBeLessThan(PER_INPUT_MS);
}

const REAL = synthesize({ n: 300, windowS: 30 });
const TEXT = JSON.stringify(REAL);

/** Every path into the result (object keys and array indices), for edits that keep the rest intact. */
function paths(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (v && typeof v === 'object') {
    for (const [k, child] of Object.entries(v)) {
      const p = [...prefix, Array.isArray(v) ? Number(k) : k];
      out.push(p);
      paths(child, p, out);
    }
  }
  return out;
}
const PATHS = paths(REAL);

function edited(path: (string | number)[], change: { delete: true } | { value: unknown }): string {
  const doc = JSON.parse(TEXT) as Record<string | number, unknown>;
  let parent: Record<string | number, unknown> = doc;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if ('delete' in change) delete parent[last];
  else parent[last] = change.value;
  return JSON.stringify(doc);
}

describe('the result loader never throws anything but one ResultFileError line, and never hangs', () => {
  // The schema compiles on its first use: before the clock, so each input's bound times that input alone.
  beforeAll(() => parseResult(TEXT, 'fuzz.json'));

  test('the real result loads', () => {
    expect(parseResult(TEXT, 'fuzz.json').run_id).toBe(REAL.run_id);
  });

  test('arbitrary text and JSON values', () => {
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.json({ maxDepth: 4 })), loadOrOneLine), {
      seed: SEED,
      numRuns: 3000,
    });
  });

  test('truncations of a real result', () => {
    fc.assert(
      fc.property(fc.nat({ max: TEXT.length }), (n) => loadOrOneLine(TEXT.slice(0, n))),
      { seed: SEED, numRuns: 1000 },
    );
  });

  test('a value of a real result replaced by any JSON value, or its key deleted', () => {
    const change = fc.oneof(
      fc.constant({ delete: true as const }),
      fc.jsonValue({ maxDepth: 2 }).map((value) => ({ value })),
      fc.constantFrom(-1, 0, 1e308, '', 'HISTFAAAA', null, [], {}).map((value) => ({ value })),
    );
    fc.assert(
      fc.property(fc.nat({ max: PATHS.length - 1 }), change, (i, c) => loadOrOneLine(edited(PATHS[i], c))),
      { seed: SEED, numRuns: 1000 },
    );
  });
});
