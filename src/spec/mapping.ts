import { Type, type ObjectOptions, type TObject, type TProperties } from '../json-schema.js';

/**
 * A mapping of the spec. It accepts only its own keys (a typo is an error, worded with a
 * did-you-mean in messages.ts). A key with a `default` is not required of the writer, since
 * ajv's useDefaults fills it, yet its type (the Static, which is the spec after validation)
 * always has it; a key wrapped in Type.Optional is absent unless written.
 */
export function Mapping<P extends TProperties>(properties: P, options: ObjectOptions = {}): TObject<P> {
  const schema = Type.Object(properties, { ...options, additionalProperties: false });
  const json = schema as { required?: string[] };
  const required = (json.required ?? []).filter((key) => !('default' in properties[key]));
  if (required.length > 0) json.required = required;
  else delete json.required;
  return schema;
}

/** An optional top-level section: omitted, it is `{}` and then filled with its own defaults. */
export const Section = <P extends TProperties>(properties: P, options: ObjectOptions = {}) =>
  Mapping(properties, { default: {}, ...options });
