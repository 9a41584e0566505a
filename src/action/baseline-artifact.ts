import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseResult } from '../result/load.js';
import type { Octokit } from './github-context.js';
import type { Result } from '../result/types.js';
import { DEFAULT_MAX_ENTRY_BYTES, readZip } from './unzip.js';
import { appendAll } from '../numbers.js';

/*
 * A baseline from the base branch: the artifact that a successful run of the same workflow
 * uploaded there (mode: record, then actions/upload-artifact). Preferred is the run on the pull
 * request's merge base, the commit the change actually started from; else the newest one young
 * enough to still describe the base branch.
 */

export interface WorkflowRun {
  id: number;
  html_url: string;
  head_sha: string;
  head_branch: string | null;
  event: string;
  created_at: string;
  head_repository?: { full_name: string } | null;
}

export interface ArtifactBaseline {
  result: Result;
  artifact: string;
  run: WorkflowRun;
  /** The run is on the pull request's merge base, not merely the newest on the branch. */
  mergeBase: boolean;
}

export interface ArtifactQuery {
  owner: string;
  repo: string;
  /** A token that may read the repository's Actions (`permissions: actions: read`); the artifact is downloaded with it. */
  token: string;
  /** Workflow file name (ci.yml) or numeric id. */
  workflow: string | number;
  branch: string;
  artifact: string;
  maxAgeMs: number;
  pullRequest?: { baseSha: string; headSha: string };
  /** The JSON file to take when the artifact holds several (the basename of result-path). */
  entryName: string;
  now: number;
}

/** How many candidate runs are asked for their artifacts before the baseline counts as missing. */
const MAX_CANDIDATES = 5;

/**
 * Runs that may supply a baseline, best first: pull-request runs never do (a fork could name
 * its branch after ours and plant an artifact), nor runs older than maxAgeMs; the merge-base
 * run leads, the rest follow newest first.
 */
export function rankRuns(runs: WorkflowRun[], o: { repo: string; mergeBase: string | null; maxAgeMs: number; now: number }): WorkflowRun[] {
  const eligible = runs
    .filter((r) => !r.event.startsWith('pull_request'))
    .filter((r) => !r.head_repository || r.head_repository.full_name === o.repo)
    .filter((r) => o.now - Date.parse(r.created_at) <= o.maxAgeMs)
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  const atBase = eligible.filter((r) => o.mergeBase !== null && r.head_sha === o.mergeBase);
  return [...atBase, ...eligible.filter((r) => !atBase.includes(r))];
}

/** The baseline, or why there is none. Throws (one line) when the API or the download fails. */
export async function fetchArtifactBaseline(octokit: Octokit, q: ArtifactQuery): Promise<ArtifactBaseline | { missing: string }> {
  const { owner, repo } = q;
  const mergeBase = q.pullRequest ? await findMergeBase(octokit, q) : null;
  const runs = await api(`listing the runs of workflow ${q.workflow}`, () => listRecentRuns(octokit, q));
  const candidates = rankRuns(runs, { repo: `${owner}/${repo}`, mergeBase, maxAgeMs: q.maxAgeMs, now: q.now }).slice(0, MAX_CANDIDATES);
  const age = humanAge(q.maxAgeMs);
  if (candidates.length === 0) return { missing: `no successful run of ${q.workflow} on ${q.branch} within ${age}` };
  for (const run of candidates) {
    const { data } = await api(`listing the artifacts of run ${run.id}`, () =>
      octokit.rest.actions.listWorkflowRunArtifacts({ owner, repo, run_id: run.id, name: q.artifact, per_page: 100 }),
    );
    const artifact = data.artifacts.find((a) => a.name === q.artifact && !a.expired);
    if (!artifact) continue;
    const zip = await api(`downloading artifact ${q.artifact} of run ${run.id}`, () => downloadArtifact(q, run.id, artifact.id));
    const result = await resultFromZip(zip, `artifact ${q.artifact} of run ${run.id}`, q.entryName);
    return { result, artifact: q.artifact, run, mergeBase: run.head_sha === mergeBase };
  }
  return {
    missing: `none of the ${candidates.length} newest successful runs of ${q.workflow} on ${q.branch} within ${age} has an unexpired artifact named ${q.artifact}`,
  };
}

/** The merge base of the pull request, or null when the comparison cannot be had (then the newest run serves). */
async function findMergeBase(octokit: Octokit, q: ArtifactQuery): Promise<string | null> {
  try {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
      owner: q.owner,
      repo: q.repo,
      basehead: `${q.pullRequest!.baseSha}...${q.pullRequest!.headSha}`,
      per_page: 1,
    });
    return data.merge_base_commit.sha;
  } catch {
    return null;
  }
}

/** Successful runs on the branch, newest first, paging only as far back as maxAgeMs. */
async function listRecentRuns(octokit: Octokit, q: ArtifactQuery): Promise<WorkflowRun[]> {
  const runs: WorkflowRun[] = [];
  const pages = octokit.paginate.iterator(octokit.rest.actions.listWorkflowRuns, {
    owner: q.owner,
    repo: q.repo,
    workflow_id: q.workflow,
    branch: q.branch,
    status: 'success',
    per_page: 100,
  });
  for await (const page of pages) {
    appendAll(runs, page.data as WorkflowRun[]);
    const oldest = page.data.at(-1);
    if (!oldest || q.now - Date.parse(oldest.created_at) > q.maxAgeMs) break;
  }
  return runs;
}

/** An artifact zip larger than this is not a baseline: refused before it is read into memory. */
const MAX_ARTIFACT_BYTES = DEFAULT_MAX_ENTRY_BYTES;

/**
 * The artifact's zip, downloaded by @actions/artifact (the toolkit's client, the one
 * actions/download-artifact uses) from another run by id with our token. GitHub answers with a
 * redirect to a signed storage URL, which the toolkit fetches without our Authorization header.
 * It is kept zipped (skipDecompress) so that readZip, with its caps and checks, is what opens it.
 * Loaded here, when a baseline artifact is fetched: the toolkit and the storage SDK under it are
 * a sixth of the Action's start-up, which every other step would pay.
 */
async function downloadArtifact(q: ArtifactQuery, runId: number, artifactId: number): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'loadgate-artifact-'));
  try {
    const { DefaultArtifactClient } = await import('@actions/artifact');
    await new DefaultArtifactClient().downloadArtifact(artifactId, {
      path: dir,
      skipDecompress: true,
      findBy: { token: q.token, workflowRunId: runId, repositoryOwner: q.owner, repositoryName: q.repo },
    });
    const [file, ...more] = readdirSync(dir);
    if (file === undefined || more.length > 0) throw new Error(`expected one downloaded file, found ${more.length + (file ? 1 : 0)}`);
    const size = statSync(join(dir, file)).size;
    if (size > MAX_ARTIFACT_BYTES) throw new Error(`the artifact is ${size} bytes; expected at most ${MAX_ARTIFACT_BYTES}`);
    return readFileSync(join(dir, file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The loadgate result inside an artifact zip: its one JSON file, or the one named like result-path. */
export async function resultFromZip(zip: Buffer, what: string, entryName: string): Promise<Result> {
  let text: string;
  let name: string;
  try {
    const entries = (await readZip(zip)).filter((e) => e.name.endsWith('.json'));
    const entry = entries.find((e) => basename(e.name) === entryName) ?? (entries.length === 1 ? entries[0] : undefined);
    if (!entry) {
      const found = entries.length === 0 ? 'none' : entries.map((e) => e.name).join(', ');
      throw new Error(`holds no single loadgate result: expected one .json file or one named ${entryName} (JSON files found: ${found})`);
    }
    text = (await entry.read()).toString('utf8');
    name = entry.name;
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
  }
  return parseResult(text, `${what}, ${name}`);
}

/** Runs an API call, turning its failure into one line that says what was being done and how to fix a permission problem. */
async function api<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const status = (err as { status?: number }).status;
    const message = ((err as Error).message ?? String(err)).split('\n')[0];
    const hint = status === 403 || status === 404 ? '; the job needs `permissions: actions: read` to fetch baselines' : '';
    throw new Error(`baseline-artifact: ${doing} failed (${status ? `HTTP ${status}: ` : ''}${message})${hint}`, { cause: err });
  }
}

/** 90 s, 12 min, 5 h, 3 d: how old a baseline is, at a glance. */
export function humanAge(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}
