import { dirname, join, resolve } from 'node:path';
import * as core from '@actions/core';
import * as github from '@actions/github';
import { compare } from '../gate/compare.js';
import { gateOf } from '../spec/gate-schema.js';
import type { GateReport } from '../gate/types.js';
import { escapeMarkdown as md } from '../report/escape.js';
import { renderHtml } from '../report/html.js';
import { loadResult } from '../result/load.js';

import { writeFileAtomic } from '../result/write.js';
import { TOOL_VERSION } from '../version.js';
import { applyMissingBaseline, baselineNote, baselineResult, resolveBaseline, type BaselineSource } from './baseline.js';
import { runInterleaved } from '../run/run.js';
import { loadActionSpec, runActionBenchmark } from './benchmark.js';
import { commentBody, postStickyComment } from './comment.js';
import { isPullRequestEvent, readContext, type Octokit, type RunContext } from './github-context.js';
import { readHandoff, verifyPullRequest, writeHandoff } from './handoff.js';
import { readInputs, type ActionInputs } from './inputs.js';
import { sweepGate } from './sweep.js';
import { setResultOutputs } from './outputs.js';
import { maskSecret } from './secrets.js';
import { errorMarkdown, joinParts, reportParts, writeJobSummary, type ReportParts } from './summary.js';
import type { Result } from '../result/types.js';

/**
 * The action: inputs → benchmark → verdict → job summary, PR comment, outputs → failure per
 * fail-on, in that order, so a regression never swallows the report. An operational error
 * (bad input or spec, unreachable target, failed baseline download) is not a verdict: it
 * fails the step with one line, verdict output `error` and exit code 3.
 */
export async function run(): Promise<void> {
  // Masked before anything else runs: from here on no log line can show them.
  maskSecret(core.getInput('api-key'));
  maskSecret(core.getInput('github-token'));
  try {
    const inputs = readInputs((name) => core.getInput(name));
    enterWorkingDirectory(inputs.workingDirectory);
    const ctx = readContext();
    let client: Octokit | undefined;
    const octokit = () => {
      if (!inputs.githubToken) throw new Error('input github-token is empty; expected a token (the default is the workflow GITHUB_TOKEN)');
      return (client ??= github.getOctokit(inputs.githubToken));
    };
    if (inputs.commentFrom) await commentFromHandoff(inputs, inputs.commentFrom, ctx, octokit);
    else if (inputs.mode === 'sweep') await sweepGate(inputs, interruptible);
    else await gate(inputs, ctx, octokit);
  } catch (err) {
    const message = ((err as Error).message ?? String(err)).split('\n')[0];
    core.setOutput('verdict', 'error');
    await writeJobSummary(errorMarkdown(message)).catch(() => undefined);
    core.setFailed(message);
    process.exitCode = 3;
  }
}

function enterWorkingDirectory(dir: string): void {
  try {
    process.chdir(dir);
  } catch (err) {
    throw new Error(
      `input working-directory is ${JSON.stringify(dir)}, which cannot be entered (${(err as NodeJS.ErrnoException).code}); expected a directory of the workspace`,
      { cause: err },
    );
  }
}

async function gate(inputs: ActionInputs, ctx: RunContext, octokit: () => Octokit): Promise<void> {
  if (inputs.mode === 'record' && isPullRequestEvent(ctx.eventName)) {
    throw new Error(
      `input mode is record on a ${ctx.eventName} event: baselines are never written from pull requests; record on push or schedule`,
    );
  }
  const resolved = inputs.result ? undefined : loadActionSpec(inputs);
  let source: BaselineSource;
  let current: Result;
  if (inputs.baselineUrl && resolved) {
    const ab = await interruptible((signal) => runInterleaved({ resolved, signal, baselineUrl: inputs.baselineUrl! }));
    source = { kind: 'interleaved', url: inputs.baselineUrl, result: ab.baseline };
    current = ab.current;
  } else {
    // Before the benchmark: a broken baseline source should fail in seconds, not after the run.
    source = await resolveBaseline(inputs, ctx, octokit);
    current = resolved ? await interruptible((signal) => runActionBenchmark(resolved, inputs.replicates, signal)) : loadResult(inputs.result!);
  }
  const baseline = baselineResult(source);

  const recorded = writeResult(inputs, current);
  const missing = source.kind === 'missing' ? source.reason : null;
  const report = applyMissingBaseline(compare(baseline, current, gateOf(current.spec)), missing, inputs.onMissingBaseline);
  const note = baselineNote(source, Date.now());
  const parts = reportParts(report, baseline, current, note, specLabel(inputs));
  const htmlPath = inputs.reportPath.replace(/(\.md)?$/, '.html');
  writeFileAtomic(inputs.reportPath, `${joinParts(parts)}\n`);
  writeFileAtomic(htmlPath, renderHtml(report, baseline, current));

  const recordNote =
    recorded.length > 0
      ? `\n\n**Recorded as the new baseline**: ${md(recorded.join(', '))}. Upload it with actions/upload-artifact so pull requests can fetch it with baseline-artifact.`
      : '';
  await writeJobSummary(`${joinParts(parts)}${recordNote}\n`);
  if (recorded.length > 0)
    core.notice(
      `Recorded a new baseline at ${recorded.join(' and ')}; upload it with actions/upload-artifact (see examples/workflows/nightly.yml).`,
    );
  const fails = failsStep(inputs, report);
  annotate(report, fails, missing !== null && inputs.onMissingBaseline === 'warn' ? missing : null);

  let commentUrl: string | undefined;
  let handoffPath = '';
  if (ctx.pullRequest) {
    // Written on every pull request run: a fork's run cannot comment, a workflow_run can post it (comment-from).
    handoffPath = join(dirname(inputs.resultPath), 'loadgate-comment.json');
    const missingBaseline = missing === null ? null : { policy: inputs.onMissingBaseline, reason: missing };
    writeHandoff(handoffPath, {
      comment_id: inputs.commentId!,
      pull_request: ctx.pullRequest.number,
      spec_path: specLabel(inputs),
      baseline_note: note.text,
      missing_baseline: missingBaseline,
      current,
      baseline,
    });
    commentUrl = await comment(inputs, inputs.commentId!, ctx, ctx.pullRequest.number, octokit, report, parts, footer(ctx));
  } else {
    core.info(`Not a pull request event (${ctx.eventName || 'no event'}): no comment`);
  }

  setResultOutputs(current);
  core.setOutput('verdict', report.verdict);
  core.setOutput('result-path', resolve(inputs.resultPath));
  core.setOutput('report-path', resolve(inputs.reportPath));
  core.setOutput('html-report-path', resolve(htmlPath));
  core.setOutput('comment-url', commentUrl ?? '');
  core.setOutput('comment-file', handoffPath && resolve(handoffPath));
  core.info(`Verdict: ${report.verdict.toUpperCase()}${report.reasons.map((r) => `\n  ${r}`).join('')}`);
  if (fails) core.setFailed(`loadgate verdict ${report.verdict.toUpperCase()}: ${report.reasons[0] ?? ''}`);
}

const specLabel = (inputs: ActionInputs) => inputs.spec || `result ${inputs.result}`;

/** Writes the result to result-path and, in record mode, to the baseline path too; returns where it was recorded as a baseline. */
function writeResult(inputs: ActionInputs, current: Result): string[] {
  const json = `${JSON.stringify(current, null, 2)}\n`;
  writeFileAtomic(inputs.resultPath, json);
  if (inputs.mode !== 'record') return [];
  if (inputs.baseline) writeFileAtomic(inputs.baseline, json);
  return [inputs.resultPath, ...(inputs.baseline ? [inputs.baseline] : [])];
}

/** The second half of the fork pull request pattern: post the comment a handoff file describes. */
async function commentFromHandoff(inputs: ActionInputs, path: string, ctx: RunContext, octokit: () => Octokit): Promise<void> {
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
    compare(h.baseline, h.current, gateOf(h.current.spec)),
    h.missing_baseline?.reason ?? null,
    h.missing_baseline?.policy ?? 'warn',
  );
  const parts = reportParts(report, h.baseline, h.current, { text: h.baseline_note }, h.spec_path);
  const note = `<sub>Posted for pull request #${h.pull_request} by a workflow_run of the base repository; the numbers come from the pull request's own run (commit ${ctx.workflowRun.headSha.slice(0, 7)}).</sub>`;
  const url = await comment(inputs, inputs.commentId ?? h.comment_id, ctx, h.pull_request, octokit, report, parts, note);
  setResultOutputs(h.current);
  core.setOutput('verdict', report.verdict);
  core.setOutput('comment-url', url ?? '');
}

async function comment(
  inputs: ActionInputs,
  id: string,
  ctx: RunContext,
  issueNumber: number,
  octokit: () => Octokit,
  report: GateReport,
  parts: ReportParts,
  foot: string,
): Promise<string | undefined> {
  if (inputs.comment === 'never') return undefined;
  if (!inputs.githubToken || !ctx.repo) {
    core.info('No github-token or repository: no pull request comment');
    return undefined;
  }
  return postStickyComment(octokit(), {
    ...ctx.repo,
    issueNumber,
    id,
    verdict: report.verdict,
    policy: inputs.comment,
    body: commentBody(id, report.verdict, parts, foot),
  });
}

function footer(ctx: RunContext): string {
  const commit = ctx.sha ? ` · commit ${ctx.sha.slice(0, 7)}` : '';
  const link = ctx.runUrl ? ` · [job summary and full report](${ctx.runUrl})` : '';
  return `<sub>loadgate ${TOOL_VERSION}${commit}${link}</sub>`;
}

/** report mode never fails on the verdict; otherwise fail-on decides. */
function failsStep(inputs: ActionInputs, report: GateReport): boolean {
  if (inputs.mode === 'report' || inputs.failOn === 'never') return false;
  return report.verdict === 'fail' || (inputs.failOn === 'inconclusive' && report.verdict === 'inconclusive');
}

/** One annotation per violated rule: an error when it fails the step, else a warning. */
function annotate(report: GateReport, fails: boolean, missingBaseline: string | null): void {
  for (const r of report.rules) {
    if (r.status !== 'fail' && r.status !== 'warn') continue;
    const annotation = r.status === 'fail' && fails ? core.error : core.warning;
    annotation(`${r.rule}: ${r.reason}`, {
      title: `loadgate: ${r.metric} ${r.status === 'warn' ? 'warning' : r.kind === 'slo' ? 'SLO violated' : 'regression'}`,
    });
  }
  if (report.verdict === 'inconclusive') core.warning(report.reasons.join('; '), { title: 'loadgate: inconclusive' });
  if (missingBaseline)
    core.warning(`no baseline (${missingBaseline}): only absolute (SLO) rules were judged (on-missing-baseline: warn)`, {
      title: 'loadgate: no baseline',
    });
}

/** Cancelling the job (SIGTERM) or Ctrl-C stops the run early; the partial result is still reported, marked interrupted. */
async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    return await work(abort.signal);
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop);
  }
}
