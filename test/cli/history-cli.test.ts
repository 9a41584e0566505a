/**
 * `loadgate history` through the real CLI (bin/loadgate.js): append, show, check and export on
 * real files, and every bad invocation as one line with exit code 3.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryCheck } from '../../src/history/analyze.js';
import type { HistoryLine } from '../../src/history/types.js';
import type { Result } from '../../src/result/types.js';
import { normal } from '../../src/rng.js';
import { synthesize } from '../result/synthetic.js';
import { loadgate as runCli } from '../fixtures/cli.js';

/** The CLI without the CI's commit and ref, unless a test sets them. */
const loadgate = (args: string[], env: Record<string, string> = {}) => runCli(args, { GITHUB_SHA: '', GITHUB_REF: '', ...env }, 60_000);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loadgate-history-cli-'));
  for (let i = 0; i < 12; i++) {
    const r: Result = synthesize({ n: 300, seed: 50 + i, itl: (rng) => (i >= 8 ? 13 : 10) * (1 + 0.05 * normal(rng)) });
    writeFileSync(
      join(dir, `r${i}.json`),
      JSON.stringify({ ...r, run_id: `run${i}`, created_at: `2026-11-${String(i + 1).padStart(2, '0')}T03:00:00.000Z` }),
    );
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const r = (i: number) => join(dir, `r${i}.json`);

test('append (deduplicated, bounded), show, check with a page and markdown, and the exports', async () => {
  const h = join(dir, 'h.jsonl');
  const first = await loadgate(['history', 'append', '--history', h, r(0), r(1), r(2)], { GITHUB_SHA: 'abc1234def' });
  expect(first).toMatchObject({ code: 0, stderr: '' });
  expect(first.stdout).toBe(`Appended 3 line(s) to ${h}\n`);
  const again = await loadgate(['history', 'append', '--history', h, r(2), ...[3, 4, 5, 6, 7, 8, 9, 10, 11].map(r), '--max', '11']);
  expect(again.stdout).toBe(`Appended 9 line(s) to ${h}; already there: run2; dropped the 1 oldest to keep 11\n`);
  const lines = readFileSync(h, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as HistoryLine);
  expect(lines.map((l) => l.run_id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((i) => `run${i}`));
  expect(lines[0].commit).toBe('abc1234def');
  const show = await loadgate(['history', 'show', '--history', h]);
  expect(show.stdout.split('\n')[0]).toBe(`${h}: 11 night(s)`);
  expect(show.stdout.split('\n')[1]).toMatch(/^#\tdate\tcommit\tverdict\tttft_p95\t/);

  const page = join(dir, 'index.html');
  const md = join(dir, 'trend.md');
  const check = await loadgate(['history', 'check', '--history', h, '--json', '--page', page, '--markdown', md]);
  expect(check.code).toBe(1); // TPOT stepped at night 8 of 1…11: index 7, among the latest 5
  const c = JSON.parse(check.stdout) as HistoryCheck;
  expect(c.change_points).toEqual(
    expect.arrayContaining([expect.objectContaining({ metric: 'tpot_p50', index: 7, direction: 'worse', recent: true })]),
  );
  expect(readFileSync(page, 'utf8')).toContain('<figure class="trend" data-metric="tpot_p50" data-change-points="7">');
  expect(readFileSync(md, 'utf8')).toContain('xychart-beta');
  const once = JSON.parse((await loadgate(['history', 'check', '--history', h, r(11), r(0), '--json'])).stdout) as HistoryCheck;
  expect(once.analysed).toBe(12); // run11 is in the history already; run0 (dropped from it) comes after it
  const text = await loadgate(['history', 'check', '--history', h, '--fail-nights', '0']);
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/^ {2}night 7: TPOT p50 \+\d+(\.\d)? % since 2026-11-09 \(/m);

  const html = join(dir, 'report.html');
  const report = await loadgate(['report', r(11), '--history', h, '--html', html]);
  expect(report.code).toBe(0);
  expect(readFileSync(html, 'utf8')).toContain('<h2>History: 11 nights</h2>'); // run11 is already in it: not counted twice

  const smaller = JSON.parse((await loadgate(['history', 'export', '--format', 'smaller', r(0)])).stdout) as {
    name: string;
    unit: string;
  }[];
  expect(smaller.find((e) => e.name.endsWith(' TPOT p50'))?.unit).toBe('ms');
  const bmf = JSON.parse((await loadgate(['history', 'export', '--format', 'bmf', r(0)])).stdout) as Record<
    string,
    Record<string, { value: number }>
  >;
  expect(Object.values(bmf)[0].tpot_p50_ms.value).toBeGreaterThan(5);
}, 120_000);

test('every bad invocation is one line naming what is wrong, exit 3', async () => {
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, '{"v":1,"run_id":"a","date":"d","metrics":{}}\nnot json\n');
  for (const [args, line] of [
    [
      ['history', 'frob'],
      'loadgate history: unknown history command "frob"; expected append, show, check or export (see loadgate history --help)',
    ],
    [['history', 'append', r(0)], 'loadgate history: loadgate history append needs --history FILE'],
    [['history', 'check'], 'loadgate history: loadgate history check needs --history FILE and/or result files'],
    [
      ['history', 'check', r(0), '--false-alarm-rate', '0'],
      'loadgate history: --false-alarm-rate is "0"; expected a fraction above 0 and at most 0.5, e.g. 0.05',
    ],
    [
      ['history', 'check', '--history', bad],
      `loadgate history: ${bad} line 2 is not JSON (Unexpected token 'o', "not json" is not valid JSON); expected one history line per line`,
    ],
    [
      ['history', 'export', r(0), '--format', 'csv'],
      'loadgate history: --format is "csv"; expected smaller, bigger (github-action-benchmark) or bmf (Bencher)',
    ],
    [
      ['history', 'append', '--history', join(dir, 'x.jsonl'), r(0), '--max', 'ten'],
      'loadgate history: --max is "ten"; expected a whole number ≥ 0 (0 keeps every line)',
    ],
    [
      ['history', 'show', '--histroy', 'x'],
      "loadgate history: Unknown option '--histroy'; did you mean --history? (see loadgate history --help)",
    ],
  ] as const) {
    const run = await loadgate([...args]);
    expect([run.code, run.stderr]).toEqual([3, `${line}\n`]);
  }
}, 60_000);
