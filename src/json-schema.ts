import * as T from '@sinclair/typebox';
import type { ObjectOptions, Static, TNumber, TObject, TOptional, TProperties, TSchema, TString, TUnsafe } from '@sinclair/typebox';

/*
 * The building blocks of loadgate's documents (the spec, the result and its sections, the sweep
 * document, the calibration file): each is written once, as a TypeBox schema, which is both the
 * draft-07 JSON Schema ajv validates and, through `Static`, the TypeScript type the code reads.
 * Objects accept keys they do not list unless they say otherwise (TypeBox sets no
 * additionalProperties; the spec's mappings close themselves, src/spec/mapping.ts), so a newer
 * loadgate's result still loads in an older one.
 */

export type { ObjectOptions, Static, TNumber, TObject, TOptional, TProperties, TSchema, TString, TUnsafe };

/** The builders loadgate uses, by name, so the bundle keeps only these (TypeBox's `Type` holds every one). */
export const Type = {
  Array: T.Array,
  Boolean: T.Boolean,
  Integer: T.Integer,
  Literal: T.Literal,
  Null: T.Null,
  Number: T.Number,
  Object: T.Object,
  Optional: T.Optional,
  String: T.String,
  Union: T.Union,
  Unsafe: T.Unsafe,
};

/** `T | null`; null first, as readers' error messages expect (src/result/load.ts). */
export const Nullable = <S extends TSchema>(schema: S) => Type.Union([Type.Null(), schema]);

/** One of these strings: `{ enum: [...] }` in the schema (one error, not one per literal), their union in the type. */
export const OneOf = <const V extends readonly (string | number)[]>(
  values: V,
  options: { description?: string; default?: V[number] } = {},
): TUnsafe<V[number]> => Type.Unsafe<V[number]>({ enum: [...values], ...options });

/** A mapping of any keys to values of one schema (`additionalProperties`, not a key pattern). */
export const Dict = <S extends TSchema>(
  values: S,
  options: { description?: string; default?: object } = {},
): TUnsafe<Record<string, Static<S>>> =>
  Type.Unsafe<Record<string, Static<S>>>({ type: 'object', ...options, additionalProperties: values });

/** The schema with its meaning (the meaning column of docs/results.md, and editors' hover text). */
export const Described = <S extends TSchema>(description: string, schema: S): S => ({ ...schema, description });

/** A count: an integer ≥ 0. */
export const Count = (options: { description?: string } = {}) => Type.Integer({ ...options, minimum: 0 });

/**
 * Options every runtime validator is built with. Ajv checks each schema against the draft-07
 * meta-schema before compiling it, and compiles that meta-schema first, once per Ajv instance:
 * about 35 ms of every process that reads a spec or a result, spent proving again what does not
 * change between runs. test/schemas-meta.test.ts checks every schema against the meta-schema.
 */
export const RUNTIME_AJV = { validateSchema: false } as const;
