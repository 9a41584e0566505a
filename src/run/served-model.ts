import { closest } from '../spec/did-you-mean.js';
import { specHash } from '../spec/hash.js';
import type { ResolvedSpec } from '../spec/types.js';

/** A model the server does not serve, or no model to choose: an operational error, found before the first request. */
export class ServedModelError extends Error {}

/** Models quoted in a message; a gateway may list hundreds. */
const LISTED = 8;

/**
 * The spec with the model the run will send, checked against the list the server gave at
 * readiness: a model it does not serve fails now, naming what it serves with a
 * did-you-mean, instead of a whole window of 404s judged as a regression. A spec without a
 * model takes the server's only one (as vLLM's own client does) and says so; with several,
 * it must choose. When the server gave no readable list, a named model is sent as written.
 * The hash is recomputed, so a run that was told the model and one that found it agree.
 */
export function withServedModel(resolved: ResolvedSpec, models: string[] | null, url: string): { resolved: ResolvedSpec; notice?: string } {
  const named = resolved.spec.target.model;
  const listed = models ?? [];
  if (named !== undefined) {
    // Not checked, and said: a run whose model the server never confirmed should not pass for one that was.
    if (models === null)
      return {
        resolved,
        notice: `target.model ${JSON.stringify(named)} not checked: ${url} gave no readable model list (GET /models was not a JSON list); sending it as written`,
      };
    if (listed.length === 0 || listed.includes(named)) return { resolved };
    const guess = closest(named, listed);
    throw new ServedModelError(
      `target.model ${JSON.stringify(named)} is not served by ${url} (it lists ${list(listed)}); ${guess ? `did you mean ${JSON.stringify(guess)}?` : 'expected one of them in target.model'}`,
    );
  }
  if (listed.length === 1) {
    const model = listed[0];
    const spec = { ...resolved.spec, target: { ...resolved.spec.target, model } };
    return {
      resolved: { ...resolved, spec, hash: specHash(spec) },
      notice: `target.model is not set: using ${JSON.stringify(model)}, the one model ${url} lists`,
    };
  }
  if (listed.length === 0)
    throw new ServedModelError(
      `target.model is not set and ${url} ${models === null ? 'gave no readable model list' : 'lists no models'}; expected target.model in the spec`,
    );
  throw new ServedModelError(
    `target.model is not set and ${url} lists ${listed.length} models (${list(listed)}); expected one of them in target.model`,
  );
}

function list(models: string[]): string {
  const shown = models.slice(0, LISTED).map((m) => JSON.stringify(m));
  return `${shown.join(', ')}${models.length > LISTED ? ` and ${models.length - LISTED} more` : ''}`;
}
