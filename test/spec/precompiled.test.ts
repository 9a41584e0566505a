/**
 * The validators compiled ahead of time (src/spec/validators.generated.cjs) against the ones Ajv
 * compiles from the same sources at run time: each is current, and on real documents and on
 * seeded random edits of them both give the same verdict, the same errors and the same defaults.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parse } from 'yaml';
import type { ValidateFunction } from 'ajv';
import { ajvFor, PRECOMPILED_FILE, readPrecompiled, sourceKey, VALIDATOR_SOURCES } from '../../src/spec/compile-on-use.js';
import { calibrationFrom } from '../../src/gate/calibration.js';
import { mergeResults } from '../../src/result/merge.js';
import { SIM_PRESETS } from '../../src/sim/compute-bound.js';
import { PRECOMPILED_PATH } from '../docs/precompiled.js'; // which imports every module that declares a validator
import { curvePoints, sweepDocument } from '../capacity/fixtures.js';
import { synthesize } from '../result/synthetic.js';

type Json = unknown;
const clone = (x: Json): Json => JSON.parse(JSON.stringify(x)) as Json;
const examples = readdirSync('examples')
  .filter((f) => f.endsWith('.yml'))
  .map((f) => parse(readFileSync(`examples/${f}`, 'utf8')) as Json);
const result = synthesize({ n: 50, tokens: 4 });
const PRECOMPILED = readPrecompiled(new URL(`../../${PRECOMPILED_PATH}`, import.meta.url));

/** Real documents of each kind, as their readers are handed them. */
const SAMPLES: Record<string, () => Json[]> = {
  spec: () => examples,
  gate: () => [{ gate: {} }, ...examples.map((e) => ({ gate: (e as { gate?: Json }).gate ?? {} }))],
  'sim-config': () => [{}, ...Object.values(SIM_PRESETS).map((preset) => preset())],
  result: () => [result],
  sweep: () => [sweepDocument(curvePoints([10, 20, 40]))],
  calibration: () => [calibrationFrom(mergeResults([synthesize({ n: 50, seed: 1 }), synthesize({ n: 50, seed: 2 })]))],
};

/** Every path to a value in a document, so an edit can land anywhere in it. */
function paths(x: Json, at: (string | number)[] = []): (string | number)[][] {
  const here = [at];
  if (Array.isArray(x)) return [...here, ...x.flatMap((v, i) => paths(v, [...at, i]))];
  if (x && typeof x === 'object') return [...here, ...Object.entries(x).flatMap(([k, v]) => paths(v, [...at, k]))];
  return here;
}

function edited(doc: Json, path: (string | number)[], value: Json, remove: boolean): Json {
  const copy = clone(doc);
  if (path.length === 0) return value;
  let parent = copy as Record<string | number, Json>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  const last = path[path.length - 1];
  if (remove && !Array.isArray(parent)) delete parent[last];
  else parent[last] = value;
  return copy;
}

/** The two validators on copies of one document. Errors compared as JSON: the run-time one quotes the live TypeBox schema, symbols and all. */
function sameOutcome(name: string, compiled: ValidateFunction, doc: Json) {
  const ahead = PRECOMPILED[name]!.validate;
  const [a, b] = [clone(doc), clone(doc)];
  expect(ahead(a)).toBe(compiled(b));
  expect(clone(ahead.errors ?? null)).toEqual(clone(compiled.errors ?? null));
  expect(a).toEqual(b); // the same defaults filled in
}

test('every validator src/ declares is precompiled from its current source, in src/ and in the bundle', () => {
  expect([...VALIDATOR_SOURCES.keys()].sort()).toEqual(Object.keys(SAMPLES).sort());
  const bundled = readPrecompiled(new URL(`../../dist/${PRECOMPILED_FILE}`, import.meta.url));
  for (const [name, source] of VALIDATOR_SOURCES) {
    const key = sourceKey(source());
    expect({ name, key: PRECOMPILED[name]?.key }).toEqual({ name, key });
    expect({ name, key: bundled[name]?.key }).toEqual({ name, key });
  }
});

describe.each(Object.keys(SAMPLES))('the precompiled %s validator', (name) => {
  let compiled: ValidateFunction;
  beforeAll(() => {
    const source = VALIDATOR_SOURCES.get(name)!();
    compiled = ajvFor(source).compile(source.schema);
  });

  test('agrees with the run-time one on real documents', () => {
    for (const doc of SAMPLES[name]()) sameOutcome(name, compiled, doc);
  });

  test('agrees with the run-time one on random edits of them (seeded)', () => {
    const docs = SAMPLES[name]();
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.boolean(), (d, p, value, remove) => {
        const doc = docs[d % docs.length];
        const all = paths(doc);
        sameOutcome(name, compiled, edited(doc, all[p % all.length], value, remove));
      }),
      { seed: 7, numRuns: 40 },
    );
  });
});
