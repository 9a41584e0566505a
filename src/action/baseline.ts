import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import type { GateReport } from '../gate/types.js';
import { readResult } from '../result/load.js';

import { fetchArtifactBaseline, humanAge, type ArtifactBaseline } from './baseline-artifact.js';
import type { Octokit, RunContext } from './github-context.js';
import type { ActionInputs, OnMissingBaseline } from './inputs.js';
import type { Result } from '../result/types.js';

/** Where the baseline came from. `missing`: one was asked for and not found, an explicit state. */
export type BaselineSource =
  | { kind: 'file'; path: string; result: Result }
  | { kind: 'artifact'; found: ArtifactBaseline }
  | { kind: 'interleaved'; url: string; result: Result }
  | { kind: 'missing'; reason: string }
  | { kind: 'none'; reason: string };

/** Plain text (the renderer escapes it) and, when there is one, a link to the run it came from. */
export interface BaselineNote {
  text: string;
  url?: string;
}

export const baselineResult = (s: BaselineSource): Result | null =>
  s.kind === 'file' || s.kind === 'interleaved' ? s.result : s.kind === 'artifact' ? s.found.result : null;

/** Finds the baseline the inputs ask for. A file or artifact that exists but cannot be read is an error, not a missing baseline. */
export async function resolveBaseline(inputs: ActionInputs, ctx: RunContext, octokit: () => Octokit): Promise<BaselineSource> {
  if (inputs.mode === 'record') return { kind: 'none', reason: 'not used: this run records a new baseline (mode: record)' };
  if (inputs.baseline) {
    if (!existsSync(inputs.baseline)) return { kind: 'missing', reason: `baseline file ${inputs.baseline} does not exist` };
    return { kind: 'file', path: inputs.baseline, result: readResult(inputs.baseline) };
  }
  if (!inputs.baselineArtifact)
    return {
      kind: 'none',
      reason: 'none configured (inputs baseline and baseline-artifact are empty): only absolute (SLO) rules were judged',
    };
  const workflow = inputs.baselineWorkflow ?? ctx.workflowFile;
  if (!workflow)
    throw new Error('baseline-artifact: cannot tell which workflow this is (GITHUB_WORKFLOW_REF is not set); set input baseline-workflow');
  if (!ctx.repo || !ctx.baseBranch)
    throw new Error(
      'baseline-artifact: the event names no base branch (no pull request and no repository default branch in GITHUB_EVENT_PATH)',
    );
  const client = octokit(); // throws, naming input github-token, when there is no token
  const found = await fetchArtifactBaseline(client, {
    ...ctx.repo,
    token: inputs.githubToken ?? '',
    workflow,
    branch: ctx.baseBranch,
    artifact: inputs.baselineArtifact,
    maxAgeMs: inputs.baselineMaxAgeMs,
    pullRequest: ctx.pullRequest,
    entryName: basename(inputs.resultPath),
    now: Date.now(),
  });
  return 'missing' in found ? { kind: 'missing', reason: found.missing } : { kind: 'artifact', found };
}

export function baselineNote(s: BaselineSource, now: number): BaselineNote {
  switch (s.kind) {
    case 'file':
      return { text: `file ${s.path}, recorded ${s.result.created_at} (${humanAge(now - Date.parse(s.result.created_at))} old)` };
    case 'artifact': {
      const { run, artifact, mergeBase } = s.found;
      const where = mergeBase ? "the pull request's merge base" : `the newest usable run on ${run.head_branch ?? 'the base branch'}`;
      return {
        text: `artifact ${artifact} from run ${run.id}, commit ${run.head_sha.slice(0, 7)} (${where}), ${humanAge(now - Date.parse(run.created_at))} old`,
        url: run.html_url,
      };
    }
    case 'interleaved':
      return { text: `interleaved A/B: ${new URL(s.url).host}, measured in the same window with the same arrivals and prompts` };
    case 'missing':
      return { text: `missing: ${s.reason}` };
    case 'none':
      return { text: s.reason };
  }
}

/**
 * A baseline that was asked for and not found is never silent: `warn` keeps the absolute-only
 * verdict (main warns), `fail` fails, `pass` passes; the reasons say so either way.
 */
export function applyMissingBaseline(report: GateReport, missing: string | null, policy: OnMissingBaseline): GateReport {
  if (missing === null || policy === 'warn') return report;
  const reason =
    policy === 'fail'
      ? `no baseline (${missing}) and on-missing-baseline is fail`
      : `no baseline (${missing}); on-missing-baseline: pass makes the verdict pass (the absolute rules alone said ${report.verdict})`;
  return { ...report, verdict: policy, reasons: [reason, ...report.reasons] };
}
