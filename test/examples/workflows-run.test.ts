/**
 * The example workflows run as pasted into a repository where `loadgate init --workflow all`
 * ran: every input they give the action exists in action.yml, every repository file they name
 * exists after init, and the loadgate steps of the pull-request gate and the nightly run
 * through the bundled action (dist/index.js) against the simulator with a runner's
 * environment (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP, an event file).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startFakeGitHub, type FakeGitHub } from '../fixtures/fake-github.js';
import { actionYml, pullRequestEvent, ROOT, runAction, tempDir } from '../action/harness.js';

interface Step {
  uses?: string;
  id?: string;
  with?: Record<string, string | number | boolean>;
}
interface Job {
  steps: Step[];
  strategy?: { matrix?: Record<string, unknown[]> };
}
interface Workflow {
  jobs: Record<string, Job>;
}

const ours = (s: Step) => s.uses?.startsWith('loadgate/loadgate@') === true;
/** Inputs the action reads as files of the repository (result and comment-from are made by the job itself). */
const REPOSITORY_PATHS = ['spec', 'baseline', 'calibration'];

const DIR = join(ROOT, 'examples', 'workflows');
const examples = readdirSync(DIR).filter((f) => f.endsWith('.yml'));
const read = (f: string) => parse(readFileSync(join(DIR, f), 'utf8')) as Workflow;

/** The repository after `loadgate init --workflow all` (specs for the simulator). */
const repo = tempDir('loadgate-examples-');
execFileSync(process.execPath, [join(ROOT, 'bin', 'loadgate.js'), 'init', '--workflow', 'all'], { cwd: repo });

/** The values a step's input takes: a matrix expression stands for each of its values. */
function values(job: Job, value: string | number | boolean): string[] {
  const m = /^\$\{\{\s*matrix\.([\w-]+)\s*\}\}$/.exec(String(value));
  return m ? (job.strategy?.matrix?.[m[1]] ?? []).map(String) : [String(value)];
}

test('the examples are the five workflows, and init wrote what they name', () => {
  expect(examples).toEqual(['fork-pr-comment.yml', 'nightly.yml', 'pr-gate.yml', 'release-gate.yml', 'sharded.yml']);
  expect(readdirSync(join(repo, 'bench')).sort()).toEqual(['capacity.yml', 'chat.yml', 'release.yml', 'soak.yml']);
});

describe.each(examples)('%s', (file) => {
  const wf = read(file);
  const steps = Object.values(wf.jobs).flatMap((job) => job.steps.filter(ours).map((step) => ({ job, step })));

  test('uses the action, with inputs action.yml declares', () => {
    expect(steps.length).toBeGreaterThan(0);
    for (const { step } of steps)
      for (const key of Object.keys(step.with ?? {})) expect(`${key}: ${key in actionYml.inputs}`).toBe(`${key}: true`);
  });

  test('every repository file it names under with: exists after init', () => {
    for (const { job, step } of steps)
      for (const key of REPOSITORY_PATHS) {
        const value = step.with?.[key];
        if (value === undefined) continue;
        for (const path of values(job, value))
          expect(`${key}: ${path} ${existsSync(join(repo, path)) ? 'exists' : 'missing'}`).toBe(`${key}: ${path} exists`);
      }
  });

  test('says in its first comment what it needs', () => {
    const head = readFileSync(join(DIR, file), 'utf8').split('\n\n')[0];
    expect(head).toMatch(/^# /);
    expect(head).toMatch(/# Needs: /);
  });
});

describe('the workflows init wrote', () => {
  const dir = join(repo, '.github', 'workflows');
  test.each(readdirSync(dir))('%s: inputs action.yml declares, and files that exist', (file) => {
    const wf = parse(readFileSync(join(dir, file), 'utf8')) as Workflow;
    const steps = Object.values(wf.jobs).flatMap((job) => job.steps.filter(ours).map((step) => ({ job, step })));
    expect(steps.length).toBeGreaterThan(0);
    for (const { job, step } of steps) {
      for (const key of Object.keys(step.with ?? {})) expect(`${key}: ${key in actionYml.inputs}`).toBe(`${key}: true`);
      for (const key of REPOSITORY_PATHS)
        for (const path of step.with?.[key] === undefined ? [] : values(job, step.with[key]))
          expect(`${path} ${existsSync(join(repo, path)) ? 'exists' : 'missing'}`).toBe(`${path} exists`);
    }
  });
});

/** A step's inputs as a runner would pass them against the simulator: expressions resolved, secrets left out. */
function inputsOf(step: Step, job: Job, resolve: Record<string, string>): Record<string, string>[] {
  const fixed: Record<string, string> = {};
  const matrix: [string, string[]][] = [];
  for (const [key, value] of Object.entries(step.with ?? {})) {
    const text = String(value);
    if (key in resolve) fixed[key] = resolve[key];
    else if (text.includes('matrix.')) matrix.push([key, values(job, value)]);
    else if (!text.includes('${{')) fixed[key] = text;
  }
  if (matrix.length === 0) return [fixed];
  const [key, options] = matrix[0];
  return options.map((v) => ({ ...fixed, [key]: v }));
}

/** A fresh checkout of the repository for one job, as each job's runner has: jobs that run at once share no files. */
function checkout(): string {
  const dir = tempDir('loadgate-examples-job-');
  cpSync(repo, dir, { recursive: true });
  return dir;
}

const SIM = { 'target-url': 'sim' };

/** pr-gate.yml's loadgate step, with the inputs a runner passes it against the simulator. */
function prGate() {
  const wf = read('pr-gate.yml');
  const [job] = Object.values(wf.jobs);
  const [inputs] = inputsOf(job.steps.find(ours)!, job, { ...SIM, mode: 'gate' });
  return { inputs, run: runAction({ workspace: checkout(), inputs, apiUrl: github.url, event: pullRequestEvent(11) }) };
}

/** nightly.yml's loadgate steps (the record job and the soak job), each in its own checkout as on its own runner. */
function nightly() {
  const wf = read('nightly.yml');
  return Object.entries(wf.jobs).flatMap(([name, job]) =>
    job.steps.filter(ours).flatMap((step) =>
      inputsOf(step, job, SIM).map((inputs) => ({
        name,
        inputs,
        run: runAction({ workspace: checkout(), inputs, eventName: 'schedule', event: { schedule: '17 3 * * *' }, apiUrl: github.url }),
      })),
    ),
  );
}

/**
 * The workflows' jobs run at once, as GitHub runs the jobs of different workflows and the jobs
 * of one workflow that do not need each other: the tests below wait for their own. None of them
 * is judged on timing (any verdict passes), so sharing the cores changes nothing they check.
 */
let github: FakeGitHub;
let jobs: { pr: ReturnType<typeof prGate>; nightly: ReturnType<typeof nightly> };
beforeAll(async () => {
  github = await startFakeGitHub();
  jobs = { pr: prGate(), nightly: nightly() };
  // Awaited by the tests; a failure here is theirs to report, not an unhandled rejection.
  for (const j of [jobs.pr, ...jobs.nightly]) j.run.catch(() => undefined);
});
afterAll(async () => {
  await Promise.allSettled([jobs.pr, ...jobs.nightly].map((j) => j.run));
  await github.close();
}, 240_000);

test('pr-gate.yml: its loadgate step gates a pull request against the simulator and comments', async () => {
  expect(jobs.pr.inputs).toMatchObject({
    spec: 'bench/chat.yml',
    'baseline-artifact': 'loadgate-baseline',
    'target-url': 'sim',
    mode: 'gate',
  });
  const r = await jobs.pr.run;
  expect(r.stderr).toBe('');
  expect(['pass', 'fail', 'inconclusive']).toContain(r.outputs.verdict);
  expect(r.summary).toContain('loadgate');
  expect(existsSync(r.outputs['result-path'])).toBe(true);
  // No baseline recorded yet: judged on the absolute rules, with a warning, as on-missing-baseline says.
  expect(r.stdout).toMatch(/::warning.*baseline/i);
  expect(github.comments.get(11)?.length).toBe(1);
}, 120_000);

test('nightly.yml: the record job and the soak job run against the simulator', async () => {
  expect(jobs.nightly.map((r) => `${r.name}: ${r.inputs.spec}`)).toEqual(['record: bench/chat.yml', 'soak: bench/soak.yml']);
  for (const { name, run } of jobs.nightly) {
    const r = await run;
    expect(`${name}: ${r.stderr}`).toBe(`${name}: `);
    expect(['pass', 'fail', 'inconclusive']).toContain(r.outputs.verdict);
    const result = JSON.parse(readFileSync(r.outputs['result-path'], 'utf8')) as {
      replicates?: { count: number };
      pattern?: { soak?: unknown };
    };
    if (name === 'record') expect(result.replicates?.count).toBe(3);
    else expect(result.pattern?.soak).toBeDefined();
  }
}, 240_000);
