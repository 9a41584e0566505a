const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
/** Go-style: one or more `<number><unit>` parts; `ms` is listed before `m` so it wins the alternation. */
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|h|m|s))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;

/** Milliseconds in a duration such as `500ms`, `30s`, `5m`, `1h`, `1.5s` or `1m30s`. */
export function parseDuration(s: string): number {
  if (!WHOLE.test(s)) {
    throw new Error(`${JSON.stringify(s)} is not a duration; expected e.g. 500ms, 30s, 5m, 1m30s`);
  }
  let ms = 0;
  for (const [, amount, unit] of s.matchAll(PART)) ms += Number(amount) * UNIT_MS[unit];
  return ms;
}
