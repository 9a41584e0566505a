/**
 * The repository speaks of the product to its users: no README, doc, example, script, source or
 * test refers to the project's issue tracker or tells how and when the work was done.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './pages.js';

/** Phrases about the work rather than the product, each with why it is not for users. */
export const HISTORY: readonly RegExp[] = [
  /(?<=[\s(])#\d{1,4}(\.\d+)?(?![0-9a-fA-F])/, // an issue number (#17, #16.3); not a colour (fill="#888")
  /\bissue \d+/i,
  /\bthe issue\b/i,
  /\b(this|next|previous|last|earlier) session\b/i,
  /\bsession (before|after)\b/i,
  /\bearlier attempt\b/i,
  /\bwas (added|introduced|removed)\b/i,
  /\bgap left by\b/i,
  /\b(the )?previous build\b/i,
  /\bseeds\/\d+/, // material outside the repository
];

function files(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return files(path, keep);
    return keep(e.name) ? [path] : [];
  });
}

const prose = (n: string) => /\.(md|ya?ml|json|jsonl|csv)$/.test(n);
const code = (n: string) => /\.(ts|mjs|js)$/.test(n);
export const CHECKED = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  'action.yml',
  ...files('docs', prose),
  ...files('examples', prose),
  ...files('src', code),
  ...files('scripts', code),
  ...files('test', code).filter((f) => f !== join('test', 'docs', 'wording.test.ts')),
];

/**
 * Lines of test data that must look like what they test: a hostile Markdown mention (`@octocat
 * #1`) and GitHub's own numbering of a pull request in a message.
 */
const TEST_DATA = /@octocat #\d|pull request #\d/;

/** Every line of `text` that one of the phrases matches, as `file:line: text`. */
export function historyLines(name: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) => (!TEST_DATA.test(line) && HISTORY.some((re) => re.test(line)) ? [`${name}:${i + 1}: ${line.trim()}`] : []));
}

test('the checked files include the README, the docs, the examples, the sources and the tests', () => {
  expect(CHECKED).toEqual(
    expect.arrayContaining([
      'README.md',
      'docs/methodology.md',
      'examples/quickstart.yml',
      'src/cli/main.ts',
      'test/cli/hostile-inputs.test.ts',
    ]),
  );
  expect(CHECKED.length).toBeGreaterThan(150);
});

test('no file speaks of issues or of how the work was done', () => {
  const found = CHECKED.flatMap((f) => historyLines(relative(ROOT, join(ROOT, f)), readFileSync(join(ROOT, f), 'utf8')));
  expect(found).toEqual([]);
});

test('the phrases are caught, colours and entities are not', () => {
  const sample = [
    "in #17's four A/A runs",
    'fails now (#16.3): a model',
    'measured the next session',
    "the issue's target",
    'The session before these runs',
    'an earlier attempt beside idle-priority work',
    'fill="#888" color:#1a7f37 &#39;',
    'see seeds/003',
  ].join('\n');
  expect(historyLines('x', sample).map((l) => Number(l.split(':')[1]))).toEqual([1, 2, 3, 4, 5, 6, 8]);
});
