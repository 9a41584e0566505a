/**
 * Every workflow we ship (our CI and the examples) is valid workflow YAML, and every step that
 * uses this action passes only inputs action.yml declares and reads only outputs it sets. The
 * scale-out examples (a matrix of shards, a Kubernetes Indexed Job) are checked for what makes
 * them one benchmark, and the Kubernetes one's scripts are run against the simulator.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { Result } from '../../src/result/types.js';
import { launchSim } from '../../src/sim/launch.js';
import { actionYml, ROOT, tempDir } from './harness.js';

interface Step {
  uses?: string;
  run?: string;
  id?: string;
  with?: Record<string, unknown>;
}
interface Job {
  'runs-on': unknown;
  steps: Step[];
  permissions?: Record<string, string>;
  needs?: string | string[];
  strategy?: { matrix?: Record<string, unknown> };
}
interface Workflow {
  name?: string;
  on: unknown;
  permissions?: Record<string, string>;
  env?: Record<string, unknown>;
  jobs: Record<string, Job>;
}

const files = ['.github/workflows', 'examples/workflows'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.yml'))
    .map((f) => join(dir, f)),
);
/** Our action: `./` in this repository, loadgate/loadgate@<ref> in the examples. */
const ours = (s: Step) => s.uses === './' || /^loadgate\/loadgate@/.test(s.uses ?? '');

test('our CI and the five examples are there', () => {
  expect(files.sort()).toEqual([
    '.github/workflows/ci.yml',
    'examples/workflows/fork-pr-comment.yml',
    'examples/workflows/nightly.yml',
    'examples/workflows/pr-gate.yml',
    'examples/workflows/release-gate.yml',
    'examples/workflows/sharded.yml',
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

describe('examples/workflows/sharded.yml: a matrix of --shard K/N jobs merged by a final job', () => {
  const text = readFileSync(join(ROOT, 'examples/workflows/sharded.yml'), 'utf8');
  const wf = parse(text) as Workflow;
  const n = Number(wf.env?.SHARDS);
  const runs = (job: Job) => job.steps.map((s) => s.run ?? '').join('\n');

  test('the matrix holds shards 1..N, each runs --shard K/N and uploads its own result', () => {
    expect(n).toBeGreaterThan(1);
    expect(wf.jobs.shard.strategy?.matrix?.shard).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(runs(wf.jobs.shard)).toContain('--shard "${{ matrix.shard }}/$SHARDS" --out "shard-${{ matrix.shard }}.json"');
    const upload = wf.jobs.shard.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with).toMatchObject({ name: 'loadgate-shard-${{ matrix.shard }}', path: 'shard-${{ matrix.shard }}.json' });
  });

  test('every shard waits for one start time set before them', () => {
    expect(wf.jobs.shard.needs).toBe('plan');
    expect(runs(wf.jobs.shard)).toContain('${{ needs.plan.outputs.start-at }}');
    expect(wf.jobs.plan.steps.find((s) => s.id === 'start')?.run).toContain('>> "$GITHUB_OUTPUT"');
  });

  test('the merge job takes all N shard results, merges them as shards and gates the merge', () => {
    const merge = wf.jobs.merge;
    expect(merge.needs).toBe('shard');
    const download = merge.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'));
    expect(download?.with).toMatchObject({ pattern: 'loadgate-shard-*', path: 'shards', 'merge-multiple': true });
    expect(runs(merge)).toContain('merge shards/shard-*.json --mode shards --out merged.json');
    expect(merge.steps.find(ours)?.with?.result).toBe('merged.json');
  });
});

interface K8sContainer {
  name: string;
  image: string;
  env?: { name: string; value?: string }[];
  envFrom?: { secretRef?: { name: string } }[];
  args?: string[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface K8sDoc {
  kind: string;
  metadata: { name: string };
  spec: {
    completionMode?: string;
    completions?: number;
    parallelism?: number;
    template?: {
      spec: {
        initContainers?: K8sContainer[];
        containers: K8sContainer[];
        volumes: { name: string; persistentVolumeClaim?: { claimName: string } }[];
      };
    };
  };
}

describe('examples/k8s/indexed-job.yaml: an Indexed Job of shards and a merge step', () => {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'examples/k8s/indexed-job.yaml'), 'utf8')).map((d) => d.toJS() as K8sDoc);
  const job = (name: string) => docs.find((d) => d.kind === 'Job' && d.metadata.name === name)!;
  const shards = job('loadgate-shards');
  const merge = job('loadgate-merge');
  const env = (c: K8sContainer, name: string) => c.env?.find((e) => e.name === name)?.value;
  const shardPod = shards.spec.template!.spec;
  const mergePod = merge.spec.template!.spec;

  test('an Indexed Job whose N pods run at once, told N; the merge told the same N', () => {
    expect(shards.spec.completionMode).toBe('Indexed');
    expect(shards.spec.completions).toBeGreaterThan(1);
    expect(shards.spec.parallelism).toBe(shards.spec.completions);
    expect(env(shardPod.containers[0], 'SHARDS')).toBe(String(shards.spec.completions));
    expect(env(mergePod.containers[0], 'SHARDS')).toBe(String(shards.spec.completions));
  });

  test('the API key comes from a Secret, and every mount names a volume of its pod', () => {
    expect(shardPod.containers[0].envFrom).toEqual([{ secretRef: { name: 'loadgate-api-key' } }]);
    for (const pod of [shardPod, mergePod]) {
      const volumes = new Set(pod.volumes.map((v) => v.name));
      for (const c of [...(pod.initContainers ?? []), ...pod.containers])
        for (const m of c.volumeMounts ?? []) expect([m.name, volumes.has(m.name)]).toEqual([m.name, true]);
    }
    const claim = docs.find((d) => d.kind === 'PersistentVolumeClaim')!.metadata.name;
    for (const pod of [shardPod, mergePod]) expect(pod.volumes.some((v) => v.persistentVolumeClaim?.claimName === claim)).toBe(true);
  });

  test('its scripts run as written: two shards against the simulator, then the merge and the verdict', async () => {
    // The simulator serves the spec's model: a model the target does not list is an error before any load.
    const sim = await launchSim({ mode: 'paced', ttft_ms: 10, itl_ms: 2, model: 'm' });
    const dir = tempDir('loadgate-k8s-');
    for (const sub of ['spec', 'results', 'baseline']) mkdirSync(join(dir, sub));
    writeFileSync(
      join(dir, 'spec', 'bench.yml'),
      'name: k8s\ntarget: { url: http://replaced.invalid/v1, model: m, api_key_env: OPENAI_API_KEY, ready_timeout: 10s }\n' +
        'workload: { seed: 5, input_tokens: 16, output_tokens: 8, calibrate: off }\n' +
        'load: { arrival: constant, rate: 20, warmup: 500ms, steady: 2s, cooldown: 0s }\n',
    );
    // The pod's paths, on this machine: the clone is this repository, the volumes are folders.
    const local = (script: string) =>
      script
        .replaceAll('/opt/loadgate', ROOT)
        .replace(/\/(spec|results|baseline)\//g, (_, d: string) => `${join(dir, d)}/`)
        .replace('for i in $(seq 600)', 'for i in $(seq 2)');
    const sh = (script: string, extra: Record<string, string>) =>
      new Promise<number | null>((resolve) => {
        const child = spawn('sh', ['-c', local(script)], {
          env: { PATH: process.env.PATH ?? '', HOME: dir, OPENAI_API_KEY: 'sk-test', ...extra },
          stdio: 'ignore',
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
    try {
      const shardScript = shardPod.containers[0].args![0];
      // Two of the N shards, at the same time as the Indexed Job runs them (index 0 and 1).
      const codes = await Promise.all(
        [0, 1].map((i) => sh(shardScript, { JOB_COMPLETION_INDEX: String(i), SHARDS: '2', TARGET_URL: sim.baseUrl })),
      );
      expect(codes.every((c) => c === 0)).toBe(true);
      const shardResults = [1, 2].map((k) => JSON.parse(readFileSync(join(dir, 'results', `shard-${k}.json`), 'utf8')) as Result);
      expect(shardResults.map((r) => r.load.offered_rate_per_s)).toEqual([10, 10]);
      copyFileSync(join(dir, 'results', 'shard-1.json'), join(dir, 'baseline', 'baseline.json'));

      const code = await sh(mergePod.containers[0].args![0], { SHARDS: '2' });
      expect([0, 1, 2]).toContain(code); // a verdict, not an error (3)
      const merged = JSON.parse(readFileSync(join(dir, 'results', 'merged.json'), 'utf8')) as Result;
      // Each shard is itself --workers 2 threads, merged: the merge counts the runs inside.
      const runsInside = shardResults.reduce((a, r) => a + (r.merge?.merged_from ?? 1), 0);
      expect(merged.merge).toMatchObject({ mode: 'shards', merged_from: runsInside });
      expect(merged.load.offered_rate_per_s).toBe(20);
      expect(merged.requests.window.scheduled).toBe(shardResults.reduce((a, r) => a + r.requests.window.scheduled, 0));
      expect(readFileSync(join(dir, 'results', 'report.md'), 'utf8')).toContain('k8s');
    } finally {
      await sim.stop();
    }
  }, 90_000);
});
