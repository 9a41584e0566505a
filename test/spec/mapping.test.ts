import { Ajv } from 'ajv';
import { OptionalKind } from '@sinclair/typebox';
import { Type, type Static } from '../../src/json-schema.js';
import { Mapping } from '../../src/spec/mapping.js';
import { specSchema } from '../../src/spec/schema.js';
import { parseSpec } from '../../src/spec/load.js';

/*
 * The spec's type is the Static of its schema, read as the spec after ajv has filled the
 * defaults: a key is typed present unless it is wrapped in Type.Optional. These tests hold the
 * schema to that reading.
 */

test('a key with a default is not required of the writer, and is present after validation', () => {
  const schema = Mapping({ a: Type.Number({ default: 1 }), b: Type.Optional(Type.String()), c: Type.String() });
  expect(schema.required).toEqual(['c']);
  expect(schema.additionalProperties).toBe(false);
  const validate = new Ajv({ useDefaults: true, strict: true }).compile(schema);
  const doc: unknown = { c: 'x' };
  expect(validate(doc)).toBe(true);
  const typed: Static<typeof schema> = doc as Static<typeof schema>;
  expect(typed).toEqual({ a: 1, c: 'x' });
  expect(validate({ c: 'x', d: 1 })).toBe(false);
  expect(validate({ a: 2 })).toBe(false);
});

/** Every key the type says is present (not Optional) but the resolved spec lacks, by path. */
function missingKeys(schema: Record<string | symbol, unknown>, value: unknown, path = ''): string[] {
  const properties = schema.properties as Record<string, Record<string | symbol, unknown>> | undefined;
  if (!properties || value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(properties).flatMap(([key, sub]) => {
    if (key in value) return missingKeys(sub, (value as Record<string, unknown>)[key], `${path}${key}.`);
    return sub[OptionalKind] === 'Optional' ? [] : [`${path}${key}`];
  });
}

test.each([
  ['a spec naming only its target', 'target: { url: sim }'],
  [
    'a spec with the optional load, gate, sweep and sizing sections',
    `target: { url: sim }
workload: { prefix_groups: { groups: 4, tokens: 32 }, sessions: { turns: 2 } }
load: { pattern: { kind: spike, multiplier: 2, at: 1s, for: 1s }, abort: { max_error_rate: 0.5 } }
gate: { spike: { max_recovery_s: 5 }, soak: { max_drift_pct: 10 }, throughput: { requests_per_s: {} }, latency: { ttft_p99: { max_increase_pct: 5 } } }
sweep: { rates: [1, 2] }
sizing: { peak_rate: 10 }`,
  ],
  ['a trace replay', 'target: { url: sim }\nworkload: { trace: { file: t.jsonl, format: mooncake } }'],
  ['a dataset', 'target: { url: sim }\nworkload: { dataset: { path: d.jsonl, format: jsonl, filter: { max_input_tokens: 100 } } }'],
])('%s resolves with every key its type says is present', (_name, text) => {
  const { spec } = parseSpec(text, 'spec.yml', {});
  expect(missingKeys(specSchema as unknown as Record<string | symbol, unknown>, spec)).toEqual([]);
});
