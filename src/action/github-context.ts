import * as github from '@actions/github';

export type Octokit = ReturnType<typeof github.getOctokit>;

export interface PullRequestRef {
  number: number;
  baseRef: string;
  baseSha: string;
  headSha: string;
}

/** What the action needs to know about the workflow run it is part of. */
export interface RunContext {
  eventName: string;
  repo?: { owner: string; repo: string };
  pullRequest?: PullRequestRef;
  /** Set on workflow_run events: the run that triggered this one. */
  workflowRun?: { headSha: string; event: string };
  /** Branch whose runs hold baselines: the pull request's base, else the repository's default branch. */
  baseBranch?: string;
  /** File name of this workflow (e.g. ci.yml), from GITHUB_WORKFLOW_REF. */
  workflowFile?: string;
  runUrl?: string;
  sha?: string;
}

export const isPullRequestEvent = (eventName: string) => eventName === 'pull_request' || eventName === 'pull_request_target';

/** Reads the event payload (GITHUB_EVENT_PATH) and the runner's GITHUB_* variables. */
interface EventPayload {
  pull_request?: { number: number; base: { ref: string; sha: string }; head: { sha: string } };
  workflow_run?: { head_sha: string; event: string };
  repository?: { default_branch?: string };
}

export function readContext(): RunContext {
  const { env } = process;
  // The toolkit types the event payload loosely; these are the fields of it that are read here.
  const payload = github.context.payload as EventPayload;
  const eventName = env.GITHUB_EVENT_NAME ?? '';
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const pr = isPullRequestEvent(eventName) ? payload.pull_request : undefined;
  const run = eventName === 'workflow_run' ? payload.workflow_run : undefined;
  const server = env.GITHUB_SERVER_URL ?? 'https://github.com';
  return {
    eventName,
    repo: owner && repo ? { owner, repo } : undefined,
    pullRequest: pr ? { number: pr.number, baseRef: pr.base?.ref, baseSha: pr.base?.sha, headSha: pr.head?.sha } : undefined,
    workflowRun: run ? { headSha: run.head_sha, event: run.event } : undefined,
    baseBranch: pr?.base?.ref ?? payload.repository?.default_branch,
    workflowFile: /\/\.github\/workflows\/([^@/]+)@/.exec(env.GITHUB_WORKFLOW_REF ?? '')?.[1],
    runUrl: env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID ? `${server}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined,
    sha: pr?.head?.sha ?? env.GITHUB_SHA,
  };
}
