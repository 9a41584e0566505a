import { DEFAULT_CHECK, type CheckSettings } from './types.js';

/** A setting of the history check that is out of range, in one line naming it. */
export class SettingError extends Error {}

interface Bound {
  min: number;
  max: number;
  integer: boolean;
  expected: string;
}

const BOUNDS: Record<keyof CheckSettings, Bound> = {
  false_alarm_rate: { min: 1e-6, max: 0.5, integer: false, expected: 'a fraction above 0 and at most 0.5, e.g. 0.05' },
  permutations: { min: 19, max: 100000, integer: true, expected: 'a whole number from 19 to 100000' },
  min_size: { min: 2, max: 1000, integer: true, expected: 'a whole number ≥ 2 (nights on either side of a change point)' },
  min_change_pct: { min: 0, max: 1000, integer: false, expected: 'a percentage ≥ 0' },
  fail_nights: { min: 0, max: 100000, integer: true, expected: 'a whole number ≥ 0 (0: a change point never fails the check)' },
  seed: { min: 0, max: 2 ** 32 - 1, integer: true, expected: 'a whole number from 0 to 4294967295' },
};

/**
 * The check's settings from strings as a user wrote them (flags or Action inputs), defaults for
 * the rest; `name` spells each setting's key as the user sees it (--fail-nights, history-fail-nights).
 */
export function checkSettings(raw: Partial<Record<keyof CheckSettings, string | undefined>>, name: (key: string) => string): CheckSettings {
  const out = { ...DEFAULT_CHECK };
  for (const key of Object.keys(BOUNDS) as (keyof CheckSettings)[]) {
    const text = raw[key];
    if (text === undefined || text === '') continue;
    const b = BOUNDS[key];
    const x = Number(text);
    if (!Number.isFinite(x) || x < b.min || x > b.max || (b.integer && !Number.isInteger(x)))
      throw new SettingError(`${name(key)} is ${JSON.stringify(text)}; expected ${b.expected}`);
    out[key] = x;
  }
  return out;
}
