import { jest } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareCommand } from '../../src/cli/compare-command.js';
import { mergeCommand } from '../../src/cli/merge-command.js';
import { reportCommand } from '../../src/cli/report-command.js';
import { readResult } from '../../src/result/load.js';
import { lognormal, synthesize } from '../result/synthetic.js';

const dir = mkdtempSync(join(tmpdir(), 'loadgate-cli-'));
const path = (name: string) => join(dir, name);
const write = (name: string, value: unknown) => writeFileSync(path(name), JSON.stringify(value));
const ttft = lognormal(240, 0.2);
write('base.json', synthesize({ n: 1000, ttft }));
write('same.json', synthesize({ n: 1000, ttft, seed: 2 }));
write('slow.json', synthesize({ n: 1000, ttft: (rng) => ttft(rng) * 1.5 }));
write('other-model.json', synthesize({ n: 1000, ttft, model: 'other' }));

/** Runs a command with stdout captured. */
async function run(command: (argv: string[]) => Promise<number>, argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    return { code: await command(argv), out };
  } finally {
    spy.mockRestore();
  }
}

describe('loadgate compare', () => {
  test('exit codes follow the verdict: 0 pass, 1 fail, 2 inconclusive', async () => {
    expect((await run(compareCommand, [path('base.json'), path('same.json')])).code).toBe(0);
    const fail = await run(compareCommand, [path('base.json'), path('slow.json')]);
    expect(fail.code).toBe(1);
    expect(fail.out.split('\n')[0]).toBe('Verdict  FAIL');
    expect((await run(compareCommand, [path('base.json'), path('other-model.json')])).code).toBe(2);
  });

  test('writes the markdown and HTML reports and prints JSON on request', async () => {
    const { code, out } = await run(compareCommand, [
      path('base.json'),
      path('slow.json'),
      '--markdown',
      path('r.md'),
      '--html',
      path('r.html'),
      '--json',
    ]);
    expect(code).toBe(1);
    expect(JSON.parse(out).verdict).toBe('fail');
    expect(readFileSync(path('r.md'), 'utf8')).toContain('| Metric | Baseline | Current | Change | Rule | Status |');
    expect(readFileSync(path('r.html'), 'utf8')).toContain('<svg ');
  });

  test('a missing baseline is an error, unless allowed: then only SLO rules are judged', async () => {
    await expect(run(compareCommand, [path('nope.json'), path('same.json')])).rejects.toThrow(`${path('nope.json')}: file not found`);
    const { code, out } = await run(compareCommand, [path('nope.json'), path('same.json'), '--allow-missing-baseline']);
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toBe('Verdict  PASS (no baseline)');
  });

  test('usage errors are one line', async () => {
    await expect(run(compareCommand, [path('base.json')])).rejects.toThrow(
      'loadgate compare takes a baseline and a result file; see loadgate compare --help',
    );
    expect((await run(compareCommand, ['--help'])).out).toMatch(/^Usage: loadgate compare BASELINE RESULT/);
  });
});

describe('loadgate merge and report', () => {
  test('merge writes a merged result that loads back', async () => {
    const { code, out } = await run(mergeCommand, [path('base.json'), path('same.json'), '--out', path('merged.json')]);
    expect(code).toBe(0);
    expect(out).toMatch(/^Merged 2 results \(replicates\) into .*merged\.json: 2000 requests in 200 s of window, 2000 ok; valid\n$/);
    expect(readResult(path('merged.json')).merge).toEqual({ mode: 'replicates', merged_from: 2, forced: false });
  });

  test('merge refuses different benchmarks and bad flags', async () => {
    await expect(run(mergeCommand, [path('base.json'), path('other-model.json'), '--out', path('x.json')])).rejects.toThrow(
      /^cannot merge .*other-model\.json: its model "other" differs/,
    );
    await expect(run(mergeCommand, [path('base.json'), path('same.json'), '--out', path('x.json'), '--mode', 'parallel'])).rejects.toThrow(
      '--mode "parallel" is not known; expected replicates or shards',
    );
    expect(existsSync(path('x.json'))).toBe(false);
  });

  test('report renders the files and exits 0 whatever the verdict', async () => {
    const { code, out } = await run(reportCommand, [path('slow.json'), '--baseline', path('base.json'), '--html', path('report.html')]);
    expect(code).toBe(0);
    expect(out).toBe(`Verdict FAIL; report written to ${path('report.html')}\n`);
    await expect(run(reportCommand, [path('slow.json')])).rejects.toThrow(
      'loadgate report needs --html FILE and/or --markdown FILE to write',
    );
  });
});
