import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Ajv, type AnySchema, type Options, type ValidateFunction } from 'ajv';
import { RUNTIME_AJV } from '../json-schema.js';

/** What a validator is compiled from: Ajv's options (over RUNTIME_AJV), its schema, and the schemas it refers to by $id. */
export interface ValidatorSource {
  options: Options;
  schema: AnySchema;
  refs?: AnySchema[];
}

/** A validator compiled ahead of time, with the key of the source it was compiled from. */
export interface PrecompiledValidator {
  key: string;
  validate: ValidateFunction;
}

/**
 * The validators compiled ahead of time (`npm run docs` writes them; the build puts a copy beside
 * the bundle, under the same name). A CommonJS file read with Node's own require, and only when a
 * validator is first needed: a process that reads no document never parses its 1.7 MB, and under
 * jest one worker reads it once, not once per test file.
 */
export const PRECOMPILED_FILE = 'validators.generated.cjs';

/** The validators of one such file (the one beside this code, or the tests' look at another copy). */
export function readPrecompiled(file: URL): Partial<Record<string, PrecompiledValidator>> {
  return (createRequire(import.meta.url)(fileURLToPath(file)) as { PRECOMPILED: Record<string, PrecompiledValidator> }).PRECOMPILED;
}

let precompiled: Partial<Record<string, PrecompiledValidator>> | undefined;
const precompiledValidators = () => (precompiled ??= readPrecompiled(new URL(`./${PRECOMPILED_FILE}`, import.meta.url)));

/** Every validator by name, as the module that owns it declared it; `npm run docs` precompiles each. */
export const VALIDATOR_SOURCES = new Map<string, () => ValidatorSource>();

/** The source's content, hashed: a precompiled validator is used only while its key still matches. */
export function sourceKey(source: ValidatorSource): string {
  return createHash('sha256').update(JSON.stringify(source)).digest('hex');
}

/** A fresh Ajv instance for the source, its refs added; `extra` options go on top (the generator's `code.source`). */
export function ajvFor(source: ValidatorSource, extra: Options = {}): Ajv {
  const ajv = new Ajv({ ...RUNTIME_AJV, ...source.options, ...extra });
  for (const ref of source.refs ?? []) ajv.addSchema(ref);
  return ajv;
}

/**
 * A named validator, made the first time it is asked for, not when its module loads: every
 * process loads every schema's module (a bundle evaluates all it holds), and most commands use one
 * or two. It is the precompiled one when that was compiled from this very source (compiling the
 * spec's or the result's schema costs 150–250 ms of each process and test file that reads one);
 * otherwise, a schema edited since `npm run docs`, it is compiled here, the same validator, slower.
 */
export function compileOnFirstUse<T>(name: string, source: () => ValidatorSource): () => ValidateFunction<T> {
  VALIDATOR_SOURCES.set(name, source);
  let validate: ValidateFunction<T> | undefined;
  return () => (validate ??= precompiledOrCompiled<T>(name, source()));
}

function precompiledOrCompiled<T>(name: string, source: ValidatorSource): ValidateFunction<T> {
  const ready = precompiledValidators()[name];
  if (ready && ready.key === sourceKey(source)) return ready.validate as ValidateFunction<T>;
  return ajvFor(source).compile<T>(source.schema);
}
