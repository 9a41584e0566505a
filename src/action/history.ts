import { dirname, join, posix } from 'node:path';
import * as log from './log.js';
import type { GateReport } from '../gate/types.js';
import { checkHistory, type HistoryCheck } from '../history/analyze.js';
import { appendToHistory, parseHistory, readHistoryText } from '../history/file.js';
import { historyLine } from '../history/line.js';
import { sinceWhenLines, sinceText } from '../history/since.js';
import type { HistoryLine } from '../history/types.js';
import { escapeMarkdown as md } from '../report/escape.js';
import { renderHistoryPage } from '../report/history-page.js';
import { historyMarkdown } from '../report/history-markdown.js';
import type { Result } from '../result/types.js';
import { writeFileAtomic } from '../result/write.js';
import { gateOf } from '../spec/gate-schema.js';
import { isPullRequestEvent } from './github-context.js';
import { readBranchFile, updateBranch, type BranchTarget } from './history-branch.js';
import type { HistoryInputs } from './history-inputs.js';
import type { StepContext } from './step.js';

/** A worse change point among the latest nights fails a nightly (not a pull request, not report mode, not fail-on never). */
export const historyFails = (h: HistoryOutcome | undefined, mode: string, failOn: string) =>
  h !== undefined && h.appended && h.check.verdict === 'fail' && mode !== 'report' && failOn !== 'never';

/** What the history did in this run, for the reports and the outputs. */
export interface HistoryOutcome {
  check: HistoryCheck;
  /** Whether this run's line was appended (not on pull requests). */
  appended: boolean;
  /** The history and its page in the workspace (in branch mode: copies of what the branch holds). */
  localPath: string;
  pagePath: string;
  /** "Since when" for each metric that failed or moved, markdown for the PR comment and the summary. */
  sinceMarkdown: string;
  /** The whole history part of the job summary: since when, change points, mermaid trends. */
  summaryMarkdown: string;
}

/** The page sits beside the history: nightly/history.jsonl → nightly/index.html. */
export const pagePathOf = (historyPath: string) => posix.join(posix.dirname(historyPath.split('\\').join('/')), 'index.html');

/** Gate rule ids → history keys: latency.ttft_p95 → ttft_p95, throughput.x → x, slo.ttft_p95 → ttft_p95. */
const movedMetrics = (report: GateReport) =>
  report.rules.filter((r) => r.status === 'fail' || r.status === 'warn').map((r) => r.id.replace(/^(latency|throughput|slo)\./, ''));

/**
 * On a push, schedule or dispatch: appends this run's line (deduplicated by run id, at most
 * history-max) and checks the history; on a pull request: checks the history followed by this
 * run, without writing it. Either way the page and the reports say since when each metric moved.
 */
export async function historyStep(step: StepContext, h: HistoryInputs, current: Result, report: GateReport): Promise<HistoryOutcome> {
  const line = lineOf(step, current, report);
  const append = !isPullRequestEvent(step.ctx.eventName);
  const { text, check } = append ? await appendAndCheck(step, h, line) : await readAndCheck(step, h, line);
  const localPath = h.branch ? join('.loadgate-history', h.path) : h.path;
  const pagePath = h.branch ? join(dirname(localPath), 'index.html') : pagePathOf(h.path);
  if (h.branch) writeFileAtomic(localPath, text, 'the history copy');
  writeFileAtomic(pagePath, renderHistoryPage(check), 'the history page');
  for (const c of check.failing) log.error(sinceText(c), { title: `loadgate: ${c.label} changed in the latest nights` });
  return {
    check,
    appended: append,
    localPath,
    pagePath,
    sinceMarkdown: sinceMarkdownOf(check, report),
    summaryMarkdown: historyMarkdown(check, movedMetrics(report)),
  };
}

function lineOf(step: StepContext, current: Result, report: GateReport): HistoryLine {
  return historyLine(current, gateOf(current.spec), {
    commit: step.ctx.sha ?? null,
    ref: process.env.GITHUB_REF ?? null,
    runner: process.env.RUNNER_NAME ?? null,
    verdict: report.verdict,
  });
}

function sinceMarkdownOf(check: HistoryCheck, report: GateReport): string {
  const since = sinceWhenLines(check, movedMetrics(report));
  return since.length > 0 ? ['#### Since when', '', ...since.map((l) => `- ${md(l)}`)].join('\n') : '';
}

/**
 * The fork pull request's comment, posted by the base repository's workflow_run: since when,
 * from the history as the base repository holds it (never from the fork's files), read only.
 */
export async function sinceForComment(step: StepContext, h: HistoryInputs, current: Result, report: GateReport): Promise<string> {
  try {
    const { check } = await readAndCheck(step, h, lineOf(step, current, report));
    return sinceMarkdownOf(check, report);
  } catch (err) {
    log.warning(`history: ${((err as Error).message ?? String(err)).split('\n')[0]}; the comment goes without since when`);
    return '';
  }
}

/** The history text with this line appended, and the check over it; committed to the branch, or written to the file. */
async function appendAndCheck(step: StepContext, h: HistoryInputs, line: HistoryLine): Promise<{ text: string; check: HistoryCheck }> {
  const make = (before: string, name: string) => {
    const text = appendToHistory(before, [line], h.max, name).text;
    return { text, check: checkHistory(parseHistory(text, name), h.settings) };
  };
  if (!h.branch) {
    const done = make(readHistoryText(h.path), h.path);
    writeFileAtomic(h.path, done.text, 'input history');
    return done;
  }
  const target = branchTarget(step, h.branch);
  const { done, rejected } = await updateBranch(
    step.octokit(),
    target,
    h.path,
    (before) => {
      const d = make(before, `${h.branch}:${h.path}`);
      return { ...d, files: { [h.path]: d.text, [pagePathOf(h.path)]: renderHistoryPage(d.check) } };
    },
    `loadgate history: ${line.spec_name} run ${line.run_id}${line.commit ? ` at ${line.commit.slice(0, 12)}` : ''}`,
  );
  if (rejected > 0) log.info(`history-branch ${h.branch}: ${rejected} push(es) rejected by concurrent writers, retried on the new head`);
  log.info(`Appended run ${line.run_id} to ${h.branch}:${h.path}`);
  return done!;
}

async function readAndCheck(step: StepContext, h: HistoryInputs, line: HistoryLine): Promise<{ text: string; check: HistoryCheck }> {
  const name = h.branch ? `${h.branch}:${h.path}` : h.path;
  const text = h.branch ? await readBranchFile(step.octokit(), branchTarget(step, h.branch), h.path) : readHistoryText(h.path);
  const lines = parseHistory(text, name);
  return { text, check: checkHistory([...lines.filter((l) => l.run_id !== line.run_id), line], h.settings) };
}

function branchTarget(step: StepContext, branch: string): BranchTarget {
  const repo = step.ctx.repo;
  if (!repo) throw new Error('input history-branch needs the repository (GITHUB_REPOSITORY is not set)');
  return { ...repo, branch };
}
