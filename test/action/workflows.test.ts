/**
 * Every workflow we ship (our CI and the examples) is valid workflow YAML, and every step that
 * uses this action passes only inputs action.yml declares and reads only outputs it sets.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { actionYml, ROOT } from './harness.js';

interface Step {
  uses?: string;
  run?: string;
  id?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  name?: string;
  on: unknown;
  permissions?: Record<string, string>;
  jobs: Record<string, { 'runs-on': unknown; steps: Step[]; permissions?: Record<string, string> }>;
}

const files = ['.github/workflows', 'examples/workflows'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.yml'))
    .map((f) => join(dir, f)),
);
/** Our action: `./` in this repository, loadgate/loadgate@<ref> in the examples. */
const ours = (s: Step) => s.uses === './' || /^loadgate\/loadgate@/.test(s.uses ?? '');

test('our CI and the four examples are there', () => {
  expect(files.sort()).toEqual([
    '.github/workflows/ci.yml',
    'examples/workflows/fork-pr-comment.yml',
    'examples/workflows/nightly.yml',
    'examples/workflows/pr-gate.yml',
    'examples/workflows/release-gate.yml',
  ]);
});

/** fork-pr-comment.yml shows its first half, the fork's own workflow, in a comment: that is checked too. */
const embedded = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('#   '))
    .map((l) => l.slice(4))
    .join('\n');
const workflows = files.flatMap((file) => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return file.endsWith('fork-pr-comment.yml')
    ? [
        [file, text],
        [`${file} (the fork's workflow in its comment)`, embedded(text)],
      ]
    : [[file, text]];
});

describe.each(workflows)('%s', (_, text) => {
  const wf = parse(text) as Workflow;

  test('is a workflow: triggers and jobs whose steps each run or use something', () => {
    expect(wf.on).toBeDefined();
    expect(Object.keys(wf.jobs).length).toBeGreaterThan(0);
    for (const job of Object.values(wf.jobs)) {
      expect(job['runs-on']).toBeDefined();
      for (const step of job.steps) expect(Boolean(step.uses) !== Boolean(step.run)).toBe(true);
    }
  });

  test('uses the action with declared inputs only, and reads declared outputs only', () => {
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    const mine = steps.filter(ours);
    expect(mine.length).toBeGreaterThan(0);
    for (const step of mine) {
      for (const key of Object.keys(step.with ?? {})) expect([key, key in actionYml.inputs]).toEqual([key, true]);
      expect(Boolean(step.with?.spec || step.with?.['comment-from'] || step.with?.result)).toBe(true);
    }
    const ids = new Set(mine.map((s) => s.id).filter(Boolean));
    for (const [, id, output] of text.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
      if (ids.has(id)) expect([output, output in actionYml.outputs]).toEqual([output, true]);
    }
  });

  test('grants what the inputs need: actions read for baseline artifacts', () => {
    for (const job of Object.values(wf.jobs)) {
      const permissions = job.permissions ?? wf.permissions;
      if (job.steps.some((s) => ours(s) && s.with?.['baseline-artifact'])) expect(permissions?.actions).toBe('read');
    }
  });
});

test('action.yml: kebab-case inputs, each described; node24 running the bundle', () => {
  const yml = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { description?: string }>;
    outputs: Record<string, { description?: string }>;
    runs: object;
  };
  for (const [name, input] of [...Object.entries(yml.inputs), ...Object.entries(yml.outputs)]) {
    expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(input.description?.length).toBeGreaterThan(10);
  }
  expect(yml.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
});
