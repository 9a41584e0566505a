import type { Spec } from './types.js';

/**
 * The model a run's requests name. A spec for a real server may leave it out; the run fills it
 * from the server's list (src/run/served-model.ts) before the first request, so past that
 * point it is always there.
 */
export function modelOf(spec: Spec): string {
  const model = spec.target.model;
  if (model === undefined) throw new Error('internal error: the model was not resolved before the run; please report it');
  return model;
}
