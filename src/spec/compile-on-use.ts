import type { ValidateFunction } from 'ajv';

/**
 * An Ajv validator compiled the first time it is asked for, not when its module loads. Every
 * process loads every schema's module (a bundle evaluates all it holds), and compiling them all is
 * a large share of each start (`loadgate --help` included); most commands use one or two.
 */
export function compileOnFirstUse<T>(compile: () => ValidateFunction<T>): () => ValidateFunction<T> {
  let validate: ValidateFunction<T> | undefined;
  return () => (validate ??= compile());
}
