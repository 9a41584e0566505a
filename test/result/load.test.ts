import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readResult, ResultFileError } from '../../src/result/load.js';
import { synthesize } from './synthetic.js';

const dir = mkdtempSync(join(tmpdir(), 'loadgate-load-'));
const result = synthesize({ n: 200 });
const text = JSON.stringify(result, null, 2);
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const edited = (edit: (doc: Record<string, unknown>) => void) => {
  const doc = JSON.parse(text) as Record<string, unknown>;
  edit(doc);
  return JSON.stringify(doc);
};

describe('readResult', () => {
  test('reads back what a run wrote', () => {
    expect(readResult(file('ok.json', text))).toEqual(JSON.parse(text));
  });

  test.each([
    ['a missing file', () => join(dir, 'missing.json'), `${join(dir, 'missing.json')}: file not found`],
    [
      'a directory',
      () => (mkdirSync(join(dir, 'sub'), { recursive: true }), join(dir, 'sub')),
      `${join(dir, 'sub')}: is a directory, not a result file`,
    ],
    ['an empty file', () => file('empty.json', ''), `${join(dir, 'empty.json')}: the file is empty; expected a loadgate result (JSON)`],
    [
      'a future schema_version',
      () =>
        file(
          'future.json',
          edited((d) => (d.schema_version = 2)),
        ),
      `${join(dir, 'future.json')}: schema_version 2 is newer than this loadgate understands (1); upgrade loadgate`,
    ],
    [
      'an older schema_version',
      () =>
        file(
          'old.json',
          edited((d) => (d.schema_version = 0)),
        ),
      `${join(dir, 'old.json')}: schema_version 0 is older than this loadgate understands (1); re-run the benchmark to make a new baseline`,
    ],
    [
      'no schema_version',
      () => file('vllm.json', '{"backend":"openai-chat"}'),
      `${join(dir, 'vllm.json')}: not a loadgate result (no schema_version; note that --format vllm files cannot be read back)`,
    ],
    [
      'a JSON array',
      () => file('array.json', '[1,2]'),
      `${join(dir, 'array.json')}: not a loadgate result (no schema_version; note that --format vllm files cannot be read back)`,
    ],
    [
      'a schema-invalid field',
      () =>
        file(
          'invalid.json',
          edited((d) => ((d.metrics as Record<string, Record<string, unknown>>).ttft_ms.p95 = 'fast')),
        ),
      `${join(dir, 'invalid.json')}: not a valid loadgate result: /metrics/ttft_ms/p95 must be number`,
    ],
    [
      'a missing section',
      () =>
        file(
          'partial.json',
          edited((d) => delete d.requests),
        ),
      `${join(dir, 'partial.json')}: not a valid loadgate result: the document must have required property 'requests'`,
    ],
    [
      'a corrupt histogram',
      () =>
        file(
          'histogram.json',
          edited((d) => ((d.histograms as Record<string, string>).ttft = 'bm90IGEgaGlzdG9ncmFt')),
        ),
      `${join(dir, 'histogram.json')}: histogram "ttft" cannot be decoded; the file is corrupt`,
    ],
  ])('rejects %s with one clear line', (_what, path, message) => {
    const p = path();
    expect(() => readResult(p)).toThrow(ResultFileError);
    expect(() => readResult(p)).toThrow(new ResultFileError(message));
  });

  test('rejects a truncated file as not valid JSON', () => {
    const p = file('truncated.json', text.slice(0, text.length / 2));
    expect(() => readResult(p)).toThrow(
      new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid JSON \\([^\\n]+\\); the file is truncated or corrupt$`),
    );
  });

  test('accepts fields added later without a version bump', () => {
    expect(() =>
      readResult(
        file(
          'extra.json',
          edited((d) => (d.future_field = { x: 1 })),
        ),
      ),
    ).not.toThrow();
  });
});
