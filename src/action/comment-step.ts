import { compare } from '../gate/compare.js';
import { gateOf } from '../spec/gate-schema.js';
import { applyMissingBaseline } from './baseline.js';
import { postReportComment } from './comment.js';
import { isPullRequestEvent } from './github-context.js';
import { readHandoff, verifyPullRequest } from './handoff.js';
import { resultOutputs } from './outputs.js';
import type { StepContext, StepOutcome } from './step.js';
import { reportParts } from './summary.js';
import { sinceForComment } from './history.js';

/** The second half of the fork pull request pattern: post the comment a handoff file describes. */
export async function commentStep(step: StepContext, path: string): Promise<StepOutcome> {
  const { inputs, ctx, octokit } = step;
  if (!ctx.workflowRun || !ctx.repo)
    throw new Error(
      `input comment-from is for workflow_run workflows (see examples/workflows/fork-pr-comment.yml); this event is ${ctx.eventName || 'unknown'}`,
    );
  if (!isPullRequestEvent(ctx.workflowRun.event))
    throw new Error(
      `input comment-from: the triggering run was a ${ctx.workflowRun.event} run, not a pull request's; nothing to comment on`,
    );
  const h = readHandoff(path);
  await verifyPullRequest(octokit(), ctx.repo, h.pull_request, ctx.workflowRun.headSha);
  const report = applyMissingBaseline(
    compare(h.baseline, h.current, gateOf(h.current.spec), { calibration: h.calibration }),
    h.missing_baseline?.reason ?? null,
    h.missing_baseline?.policy ?? 'warn',
  );
  const parts = reportParts(report, h.baseline, h.current, { text: h.baseline_note }, h.spec_path);
  const since = inputs.history ? await sinceForComment(step, inputs.history, h.current, report) : '';
  if (since) parts.details.unshift(since);
  const note = `<sub>Posted for pull request #${h.pull_request} by a workflow_run of the base repository; the numbers come from the pull request's own run (commit ${ctx.workflowRun.headSha.slice(0, 7)}).</sub>`;
  const url = await postReportComment(step, inputs.commentId ?? h.comment_id, h.pull_request, report.verdict, parts, note);
  return { outputs: { ...resultOutputs(h.current), verdict: report.verdict, 'comment-url': url ?? '' } };
}
