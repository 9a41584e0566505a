import { checkSettings, SettingError } from '../history/settings.js';
import type { CheckSettings } from '../history/types.js';
import { InputError } from './inputs.js';

/** The history inputs: where the history lives, how long it may grow, and the check's settings. */
export interface HistoryInputs {
  /** The history file: a path of the workspace (the workflow caches or uploads it), or the path inside history-branch. */
  path: string;
  /** Keep the history on this branch, committed with github-token; undefined: the file at `path` is the history. */
  branch?: string;
  max: number;
  settings: CheckSettings;
}

/** Defaults of the history inputs; action.yml states the same values. */
export const HISTORY_DEFAULTS = {
  'history-max': '200',
  'history-fail-nights': '5',
  'history-false-alarm-rate': '0.05',
  'history-min-change': '5',
} as const;

const SETTING_INPUT: Partial<Record<keyof CheckSettings, keyof typeof HISTORY_DEFAULTS>> = {
  fail_nights: 'history-fail-nights',
  false_alarm_rate: 'history-false-alarm-rate',
  min_change_pct: 'history-min-change',
};

/** The history inputs, or undefined when input history is not set. */
export function readHistoryInputs(get: (name: string) => string): HistoryInputs | undefined {
  const path = get('history');
  const branch = get('history-branch') || undefined;
  if (!path) {
    if (branch)
      throw new InputError('input history-branch is set but history is not; expected history: the path of the history file in that branch');
    return undefined;
  }
  if (branch !== undefined && !/^(?!\/|.*\.\.|.*\/\/|.*\/$)[A-Za-z0-9._/-]+$/.test(branch))
    throw new InputError(`input history-branch is ${JSON.stringify(branch)}; expected a branch name such as loadgate-history`);
  if (branch !== undefined && (path.startsWith('/') || path.split('/').includes('..')))
    throw new InputError(
      `input history is ${JSON.stringify(path)}; with history-branch, expected a path inside the branch such as nightly/history.jsonl`,
    );
  const value = (name: keyof typeof HISTORY_DEFAULTS) => get(name) || HISTORY_DEFAULTS[name];
  const max = Number(value('history-max'));
  if (!Number.isInteger(max) || max < 0)
    throw new InputError(
      `input history-max is ${JSON.stringify(value('history-max'))}; expected a whole number of nights ≥ 0 (0 keeps every one)`,
    );
  try {
    const raw = Object.fromEntries(Object.entries(SETTING_INPUT).map(([key, name]) => [key, value(name)]));
    return { path, branch, max, settings: checkSettings(raw, (key) => `input ${SETTING_INPUT[key as keyof CheckSettings]}`) };
  } catch (err) {
    if (err instanceof SettingError) throw new InputError(err.message);
    throw err;
  }
}
