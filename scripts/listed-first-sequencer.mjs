// Jest's order for a pass of scripts/test.mjs: the files of the list named by LOADGATE_TEST_ORDER
// (a file under test/, slowest first: parallel-files.json for the first pass, load-order.json for
// the load tests) in the order listed, then the rest in jest's own order (the slowest of the last
// run first, else the largest). Workers finish together only when the long files start early; on
// a fresh clone jest knows no durations and would start them by size, some last.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Sequencer from '@jest/test-sequencer';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const name = process.env.LOADGATE_TEST_ORDER || 'parallel-files.json';
const listed = JSON.parse(readFileSync(join(root, 'test', name), 'utf8'));
const rank = new Map(listed.map((f, i) => [f, i]));

export default class ListedFirstSequencer extends Sequencer {
  sort(tests) {
    const at = (t) => rank.get(relative(root, t.path)) ?? Infinity;
    const first = tests.filter((t) => at(t) !== Infinity).sort((a, b) => at(a) - at(b));
    return [...first, ...super.sort(tests.filter((t) => at(t) === Infinity))];
  }
}
