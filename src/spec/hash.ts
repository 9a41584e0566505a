import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so equal specs serialize identically however they were written. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** sha256 hex of the canonical JSON: the identity of a spec in results and baselines. */
export function specHash(spec: unknown): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex');
}
