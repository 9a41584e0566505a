import { hostname } from 'node:os';
import { checkHistory, type HistoryCheck } from '../history/analyze.js';
import { toBenchmarkAction, toBmf } from '../history/export.js';
import { appendHistoryFile, readHistoryFile } from '../history/file.js';
import { lineOfResult } from '../history/line.js';
import { checkSettings } from '../history/settings.js';
import { sinceText } from '../history/since.js';
import { DEFAULT_CHECK, type HistoryLine, type LineMeta } from '../history/types.js';
import type { Result } from '../result/types.js';
import { renderHistoryPage } from '../report/history-page.js';
import { historyMarkdown } from '../report/history-markdown.js';
import { readResult } from '../result/load.js';
import { checkOutputPaths, writeFileAtomic } from '../result/write.js';
import { parseCommandArgs } from './args.js';
import { EXIT, UsageError } from './errors.js';

export const HISTORY_HELP = `Usage: loadgate history append --history FILE RESULT… [--max N] [--commit SHA] [--ref REF] [--runner NAME]
       loadgate history show --history FILE [--json]
       loadgate history check [--history FILE] [RESULT…] [--json] [--page FILE] [--markdown FILE] [settings]
       loadgate history export --format F RESULT [--out FILE]

A nightly history: one JSON line per result (run id, date, commit, ref, spec hash, runner, verdict,
each gated figure with its 95 % interval and the timestamp error bound), searched for change
points with E-divisive means and a permutation test.

  append   add each RESULT's line; a run id already in the file is not added again, past lines
           are never rewritten, and past --max lines the oldest are dropped
  show     the nights of the history, oldest first
  check    the change points over the history's lines followed by each RESULT, in the order given;
           fails (exit 1) when a metric got worse at a change point among the latest nights
  export   RESULT as github-action-benchmark's customSmallerIsBetter or customBiggerIsBetter JSON
           (--format smaller | bigger) or as Bencher's BMF JSON (--format bmf)

Options:
  --history FILE            the history (JSON Lines); check reads it if given
  --max N                   keep at most N lines (default 0: all)
  --commit SHA, --ref REF   where the run came from (default: GITHUB_SHA, GITHUB_REF)
  --runner NAME             the machine that ran it (default: RUNNER_NAME, else the host name)
  --json                    print JSON: check prints { change_points: [ … ], … }
  --page FILE               check: write a self-contained HTML page of trend charts
  --markdown FILE           check: write markdown with mermaid trend charts (job summary)
  --out FILE                export: write here instead of stdout
Settings of check:
  --false-alarm-rate A      chance of any change point when nothing changed (default 0.05)
  --min-change PCT          smallest relative change reported (default 5)
  --fail-nights N           a worse change point among the latest N nights fails (default 5; 0: never)
  --min-size N              fewest nights on either side of a change point (default 3)
  --permutations N          permutations of each significance test (default 999)
  --seed N                  seed of the permutations (default 1)

Exit codes: 0 done (check: no recent worse change point), 1 check found one, 3 error.`;

const OPTIONS = {
  history: { type: 'string' },
  max: { type: 'string' },
  commit: { type: 'string' },
  ref: { type: 'string' },
  runner: { type: 'string' },
  json: { type: 'boolean', default: false },
  page: { type: 'string' },
  markdown: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  'false-alarm-rate': { type: 'string' },
  'min-change': { type: 'string' },
  'fail-nights': { type: 'string' },
  'min-size': { type: 'string' },
  permutations: { type: 'string' },
  seed: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parseHistoryArgs>['values'];
const parseHistoryArgs = (argv: string[]) => parseCommandArgs('history', argv, OPTIONS);

// eslint-disable-next-line @typescript-eslint/require-await -- every command has the async signature main() awaits
export async function historyCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseHistoryArgs(rest);
  if (values.help || sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(`${HISTORY_HELP}\n`);
    return sub === undefined ? EXIT.error : EXIT.pass;
  }
  switch (sub) {
    case 'append':
      return appendCommand(values, positionals);
    case 'show':
      return showCommand(values, positionals);
    case 'check':
      return checkCommand(values, positionals);
    case 'export':
      return exportCommand(values, positionals);
    default:
      throw new UsageError(`unknown history command "${sub}"; expected append, show, check or export (see loadgate history --help)`);
  }
}

function metaOf(values: { commit?: string; ref?: string; runner?: string }): LineMeta {
  return {
    commit: values.commit ?? process.env.GITHUB_SHA ?? null,
    ref: values.ref ?? process.env.GITHUB_REF ?? null,
    runner: values.runner ?? process.env.RUNNER_NAME ?? hostname(),
  };
}

function maxOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`--max is ${JSON.stringify(text)}; expected a whole number ≥ 0 (0 keeps every line)`);
  return n;
}

function appendCommand(values: Values, results: string[]): number {
  if (!values.history) throw new UsageError('loadgate history append needs --history FILE');
  if (results.length === 0) throw new UsageError('loadgate history append needs at least one result file');
  const max = maxOf(values.max);
  const meta = metaOf(values);
  const lines = results.map((path) => lineOfResult(readResult(path), meta));
  const done = appendHistoryFile(values.history, lines, max);
  const dup = done.duplicates.length > 0 ? `; already there: ${done.duplicates.join(', ')}` : '';
  const dropped = done.dropped > 0 ? `; dropped the ${done.dropped} oldest to keep ${max}` : '';
  process.stdout.write(`Appended ${done.added.length} line(s) to ${values.history}${dup}${dropped}\n`);
  return EXIT.pass;
}

function showCommand(values: Values, rest: string[]): number {
  if (!values.history) throw new UsageError('loadgate history show needs --history FILE');
  if (rest.length > 0) throw new UsageError('loadgate history show takes no result files; see loadgate history --help');
  const lines = readHistoryFile(values.history);
  if (values.json) process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
  else process.stdout.write(`${showText(values.history, lines)}\n`);
  return EXIT.pass;
}

function showText(name: string, lines: readonly HistoryLine[]): string {
  if (lines.length === 0) return `${name}: no nights yet`;
  const keys = [...new Set(lines.flatMap((l) => Object.keys(l.metrics)))];
  const head = ['#', 'date', 'commit', 'verdict', ...keys].join('\t');
  const rows = lines.map((l, i) =>
    [i, l.date.slice(0, 16), (l.commit ?? '—').slice(0, 7), l.verdict, ...keys.map((k) => l.metrics[k]?.value ?? '—')].join('\t'),
  );
  return [`${name}: ${lines.length} night(s)`, head, ...rows].join('\n');
}

function checkCommand(values: Values, results: string[]): number {
  if (!values.history && results.length === 0) throw new UsageError('loadgate history check needs --history FILE and/or result files');
  const settings = checkSettings(
    {
      false_alarm_rate: values['false-alarm-rate'],
      min_change_pct: values['min-change'],
      fail_nights: values['fail-nights'],
      min_size: values['min-size'],
      permutations: values.permutations,
      seed: values.seed,
    },
    (key) => `--${{ false_alarm_rate: 'false-alarm-rate', min_change_pct: 'min-change' }[key] ?? key.replace(/_/g, '-')}`,
  );
  checkOutputPaths([
    { path: values.page, what: '--page' },
    { path: values.markdown, what: '--markdown' },
  ]);
  const meta = metaOf(values);
  const past = values.history ? readHistoryFile(values.history) : [];
  // A result already in the history (the night just appended) is analysed once, where it is.
  const known = new Set(past.map((l) => l.run_id));
  const given = results.map((p) => lineOfResult(readResult(p), meta)).filter((l) => !known.has(l.run_id) && known.add(l.run_id));
  const lines = [...past, ...given];
  const check = checkHistory(lines, settings);
  if (values.page) writeFileAtomic(values.page, renderHistoryPage(check), '--page');
  if (values.markdown) writeFileAtomic(values.markdown, `${historyMarkdown(check)}\n`, '--markdown');
  process.stdout.write(values.json ? `${JSON.stringify(check, null, 2)}\n` : `${checkText(check)}\n`);
  return check.verdict === 'fail' ? EXIT.fail : EXIT.pass;
}

/** The check over a history's nights followed by `current` (once, whatever its run id), with default settings. */
export function historyWithResult(path: string, current: Result, verdict: HistoryLine['verdict']): HistoryCheck {
  const line = lineOfResult(current, { ...metaOf({}), verdict });
  const lines = readHistoryFile(path).filter((l) => l.run_id !== line.run_id);
  return checkHistory([...lines, line], DEFAULT_CHECK);
}

function checkText(c: HistoryCheck): string {
  const searched = c.series.filter((s) => s.searched);
  const head = `History: ${c.analysed} night(s) of spec ${JSON.stringify(c.spec_name ?? '')}${c.other_specs > 0 ? ` (${c.other_specs} of other specs left out)` : ''}; ${searched.length} metric(s) searched at a false-alarm rate of ${c.settings.false_alarm_rate}`;
  const points = c.change_points.map(
    (p) =>
      `  night ${p.index}: ${sinceText(p)}${p.direction === 'worse' ? ' — worse' : ' — better'}${p.recent && p.direction === 'worse' ? ', among the latest nights: FAIL' : ''}`,
  );
  return [head, points.length > 0 ? 'Change points:' : 'No change points.', ...points, `Verdict: ${c.verdict.toUpperCase()}`].join('\n');
}

function exportCommand(values: Values, results: string[]): number {
  if (results.length !== 1) throw new UsageError('loadgate history export takes exactly one result file; see loadgate history --help');
  const format = values.format;
  if (format !== 'smaller' && format !== 'bigger' && format !== 'bmf')
    throw new UsageError(
      `--format is ${JSON.stringify(format ?? '')}; expected smaller, bigger (github-action-benchmark) or bmf (Bencher)`,
    );
  const line = lineOfResult(readResult(results[0]), metaOf(values));
  const doc = format === 'bmf' ? toBmf(line) : toBenchmarkAction(line, format);
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  if (values.out) writeFileAtomic(values.out, text, '--out');
  else process.stdout.write(text);
  return EXIT.pass;
}
