/**
 * Every schema loadgate validates documents with is a valid draft-07 JSON Schema. The runtime
 * validators skip that check (RUNTIME_AJV in src/json-schema.ts: it costs a meta-schema compile
 * per process), so it is made here, once, for each of them.
 */
import { Ajv, type AnySchema } from 'ajv';
import { sweepSchema } from '../src/capacity/schema.js';
import { calibrationSchema } from '../src/gate/calibration.js';
import { resultSchema } from '../src/result/schema.js';
import { SIM_CONFIG_SCHEMA } from '../src/sim/config.js';
import { gateSchema } from '../src/spec/gate-schema.js';
import { specSchema } from '../src/spec/schema.js';

const schemas: [string, AnySchema][] = [
  ['spec', specSchema],
  ['gate', gateSchema],
  ['calibration', calibrationSchema],
  ['sim config', SIM_CONFIG_SCHEMA],
  ['result', resultSchema],
  ['sweep', sweepSchema],
];

test.each(schemas)('the %s schema is valid against the draft-07 meta-schema', (_name, schema) => {
  const ajv = new Ajv({ strict: false, discriminator: true });
  const valid = ajv.validateSchema(schema);
  expect(ajv.errorsText(ajv.errors)).toBe('No errors');
  expect(valid).toBe(true);
});

test('the meta-schema check fails a schema that is not one (the check can fail)', () => {
  const ajv = new Ajv({ strict: false });
  expect(ajv.validateSchema({ type: 'object', properties: { n: { type: 'nombre' } } })).toBe(false);
});
