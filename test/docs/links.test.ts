/**
 * Every relative link of the README, CONTRIBUTING and docs/ leads somewhere: the file exists,
 * and an anchor names a heading of it (GitHub's slugs: lower case, punctuation dropped, spaces
 * as hyphens).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './pages.js';

const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

export function slugs(markdown: string): Set<string> {
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set(
    [...text.matchAll(/^#+ (.+)$/gm)].map((m) =>
      m[1]
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}

test.each(pages)('%s: every relative link and anchor resolves', (page) => {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '');
  const broken: string[] = [];
  for (const [, target, anchor] of text.matchAll(/\]\(([^)#\s]*)(?:#([^)\s]+))?\)/g)) {
    if (/^[a-z]+:/.test(target)) continue;
    const file = target === '' ? join(ROOT, page) : join(ROOT, dirname(page), target);
    if (!existsSync(file)) broken.push(`${target}: no such file`);
    else if (anchor && file.endsWith('.md') && !slugs(readFileSync(file, 'utf8')).has(anchor))
      broken.push(`${target}#${anchor}: no such heading in ${relative(ROOT, file)}`);
  }
  expect(broken).toEqual([]);
});

test.each(pages)('%s: every repository path it names in backticks exists', (page) => {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const paths = [...text.matchAll(/`((?:src|test|scripts|docs|examples|schema)\/[\w./-]+)`/g)].map((m) => m[1]);
  expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
});
