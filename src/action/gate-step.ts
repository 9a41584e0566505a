import { dirname, join, resolve } from 'node:path';
import * as log from './log.js';
import { calibrationFor, type CalibrationFile } from '../gate/calibration.js';
import { compare } from '../gate/compare.js';
import type { GateReport } from '../gate/types.js';
import { escapeMarkdown as md } from '../report/escape.js';
import { renderHtml } from '../report/html.js';
import { readResult } from '../result/load.js';
import type { Result } from '../result/types.js';
import { checkOutputPaths, writeFileAtomic } from '../result/write.js';
import { wallClockBoundMs } from '../run/bound.js';
import { runInterleaved } from '../run/run.js';
import { gateOf } from '../spec/gate-schema.js';
import { applyMissingBaseline, baselineNote, baselineResult, resolveBaseline, type BaselineNote, type BaselineSource } from './baseline.js';
import { loadActionSpec, runActionBenchmark } from './benchmark.js';
import { postReportComment, reportFooter } from './comment.js';
import { isPullRequestEvent } from './github-context.js';
import { writeHandoff } from './handoff.js';
import type { ActionInputs } from './inputs.js';
import { historyOutputs, resultOutputs } from './outputs.js';
import { historyFails, historyStep, type HistoryOutcome } from './history.js';
import { sinceText } from '../history/since.js';
import { interruptible, type StepContext, type StepOutcome } from './step.js';
import { joinParts, reportParts, writeJobSummary, type ReportParts } from './summary.js';

/**
 * The gate step: baseline and benchmark → verdict → result and report files, job summary,
 * annotations → handoff and pull request comment. It only returns the outputs and the
 * failure; main.ts sets them, after everything here has been written.
 */
export async function gateStep(step: StepContext): Promise<StepOutcome> {
  const { inputs, ctx } = step;
  if (inputs.mode === 'record' && isPullRequestEvent(ctx.eventName)) {
    throw new Error(
      `input mode is record on a ${ctx.eventName} event: baselines are never written from pull requests; record on push or schedule`,
    );
  }
  const { source, current, early } = await baselineAndCurrent(step);
  const baseline = baselineResult(source);
  const recorded = writeResult(inputs, current);
  const missing = source.kind === 'missing' ? source.reason : null;
  const gate = gateOf(current.spec);
  const calibration = early !== undefined ? early : calibrationFor(gate, inputs.calibration);
  const report = applyMissingBaseline(compare(baseline, current, gate, { calibration }), missing, inputs.onMissingBaseline);
  const note = baselineNote(source, Date.now());
  const history = await historyOf(step, current, report);
  const parts = reportParts(report, baseline, current, note, specLabel(inputs));
  if (history.outcome?.sinceMarkdown) parts.details.unshift(history.outcome.sinceMarkdown);
  const htmlPath = htmlPathOf(inputs.reportPath);
  writeFileAtomic(inputs.reportPath, `${joinParts(parts)}\n`);
  writeFileAtomic(htmlPath, renderHtml(report, baseline, current, history.outcome?.check));
  await summarize(parts, recorded, history.outcome?.summaryMarkdown);
  const fails = failsStep(inputs, report) || historyFails(history.outcome, inputs.mode, inputs.failOn);
  annotate(report, fails, missing !== null && inputs.onMissingBaseline === 'warn' ? missing : null);
  const { commentUrl, handoffPath } = await handOff(step, { report, parts, note, missing, current, baseline, calibration });

  log.info([`Verdict: ${report.verdict.toUpperCase()}`, ...report.reasons.map((r) => `  ${r}`)]);
  return {
    outputs: {
      ...resultOutputs(current),
      verdict: report.verdict,
      'result-path': resolve(inputs.resultPath),
      'report-path': resolve(inputs.reportPath),
      'html-report-path': resolve(htmlPath),
      'comment-url': commentUrl ?? '',
      'comment-file': handoffPath && resolve(handoffPath),
      ...historyOutputs(history.outcome),
    },
    ...(fails
      ? { failure: failureLine(report, history.outcome), exitCode: 1 }
      : history.error
        ? { failure: history.error, exitCode: 3 }
        : {}),
  };
}

/** The history step, whose operational error (an unwritable branch) fails the step only after every report is written. */
async function historyOf(step: StepContext, current: Result, report: GateReport): Promise<{ outcome?: HistoryOutcome; error?: string }> {
  if (!step.inputs.history) return {};
  try {
    return { outcome: await historyStep(step, step.inputs.history, current, report) };
  } catch (err) {
    const error = ((err as Error).message ?? String(err)).split('\n')[0];
    log.error(error, { title: 'loadgate: history' });
    return { error };
  }
}

function failureLine(report: GateReport, history: HistoryOutcome | undefined): string {
  if (report.verdict === 'fail' || !history?.check.failing.length)
    return `loadgate verdict ${report.verdict.toUpperCase()}: ${report.reasons[0] ?? ''}`;
  return `loadgate history: ${sinceText(history.check.failing[0])}, among the latest ${history.check.settings.fail_nights} nights`;
}

/** The baseline and the current run: interleaved against baseline-url, else a baseline found first and then the benchmark (or a given result). */
async function baselineAndCurrent({
  inputs,
  ctx,
  octokit,
}: StepContext): Promise<{ source: BaselineSource; current: Result; early: CalibrationFile | null | undefined }> {
  const resolved = inputs.result ? undefined : loadActionSpec(inputs);
  // Every file the step writes is checked before the benchmark: a run is never lost to a bad path.
  checkOutputPaths(
    [
      { path: inputs.resultPath, what: 'input result-path' },
      { path: inputs.reportPath, what: 'input report-path' },
      { path: htmlPathOf(inputs.reportPath), what: 'the HTML report beside report-path' },
      { path: inputs.mode === 'record' ? inputs.baseline : undefined, what: 'input baseline' },
    ],
    [
      { path: inputs.result ? undefined : inputs.spec, what: 'input spec' },
      { path: inputs.result, what: 'input result' },
      { path: inputs.mode === 'record' ? undefined : inputs.baseline, what: 'input baseline' },
      { path: inputs.calibration, what: 'input calibration' },
    ],
  );
  // Before the benchmark: a bad calibration path fails in a second, not after the run (a given result's spec is read later).
  const early = resolved ? calibrationFor(gateOf(resolved.spec), inputs.calibration) : undefined;
  const onNotice = (line: string) => log.info(line);
  if (inputs.baselineUrl && resolved) {
    const baselineUrl = inputs.baselineUrl;
    const ab = await interruptible((signal) => runInterleaved({ resolved, signal, baselineUrl, onNotice }), wallClockBoundMs(resolved));
    return { source: { kind: 'interleaved', url: baselineUrl, result: ab.baseline }, current: ab.current, early };
  }
  // Before the benchmark: a broken baseline source should fail in seconds, not after the run.
  const source = await resolveBaseline(inputs, ctx, octokit);
  const current = resolved
    ? await interruptible(
        (signal) => runActionBenchmark(resolved, inputs.replicates, signal),
        wallClockBoundMs(resolved, Math.max(inputs.replicates, resolved.spec.load.replicates)),
      )
    : readResult(inputs.result!);
  return { source, current, early };
}

/** The HTML report sits beside the markdown one: report.md → report.html. */
const htmlPathOf = (reportPath: string) => reportPath.replace(/(\.md)?$/, '.html');

const specLabel = (inputs: ActionInputs) => inputs.spec || `result ${inputs.result}`;

/** Writes the result to result-path and, in record mode, to the baseline path too; returns where it was recorded as a baseline. */
function writeResult(inputs: ActionInputs, current: Result): string[] {
  const json = `${JSON.stringify(current, null, 2)}\n`;
  writeFileAtomic(inputs.resultPath, json);
  if (inputs.mode !== 'record') return [];
  if (inputs.baseline) writeFileAtomic(inputs.baseline, json);
  return [inputs.resultPath, ...(inputs.baseline ? [inputs.baseline] : [])];
}

/** The job summary, with a note on where a recorded baseline went. */
async function summarize(parts: ReportParts, recorded: string[], history = ''): Promise<void> {
  const recordNote =
    recorded.length > 0
      ? `\n\n**Recorded as the new baseline**: ${md(recorded.join(', '))}. Upload it with actions/upload-artifact so pull requests can fetch it with baseline-artifact.`
      : '';
  await writeJobSummary(`${joinParts(parts)}${recordNote}${history ? `\n\n${history}` : ''}\n`);
  if (recorded.length > 0)
    log.notice(
      `Recorded a new baseline at ${recorded.join(' and ')}; upload it with actions/upload-artifact (see examples/workflows/nightly.yml).`,
    );
}

interface Judged {
  report: GateReport;
  parts: ReportParts;
  note: BaselineNote;
  missing: string | null;
  current: Result;
  baseline: Result | null;
  calibration: CalibrationFile | null;
}

/**
 * On a pull request: the handoff file (written on every pull request run, so a fork's run,
 * which cannot comment, can have a workflow_run post it with comment-from), then the comment.
 */
async function handOff(step: StepContext, j: Judged): Promise<{ commentUrl?: string; handoffPath: string }> {
  const { inputs, ctx } = step;
  if (!ctx.pullRequest) {
    log.info(`Not a pull request event (${ctx.eventName || 'no event'}): no comment`);
    return { handoffPath: '' };
  }
  const handoffPath = join(dirname(inputs.resultPath), 'loadgate-comment.json');
  writeHandoff(handoffPath, {
    comment_id: inputs.commentId!,
    pull_request: ctx.pullRequest.number,
    spec_path: specLabel(inputs),
    baseline_note: j.note.text,
    missing_baseline: j.missing === null ? null : { policy: inputs.onMissingBaseline, reason: j.missing },
    current: j.current,
    baseline: j.baseline,
    calibration: j.calibration,
  });
  const commentUrl = await postReportComment(step, inputs.commentId!, ctx.pullRequest.number, j.report.verdict, j.parts, reportFooter(ctx));
  return { commentUrl, handoffPath };
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
    const annotation = r.status === 'fail' && fails ? log.error : log.warning;
    annotation(`${r.rule}: ${r.reason}`, {
      title: `loadgate: ${r.metric} ${r.status === 'warn' ? 'warning' : r.kind === 'slo' ? 'SLO violated' : 'regression'}`,
    });
  }
  if (report.verdict === 'inconclusive') log.warning(report.reasons.join('; '), { title: 'loadgate: inconclusive' });
  if (missingBaseline)
    log.warning(`no baseline (${missingBaseline}): only absolute (SLO) rules were judged (on-missing-baseline: warn)`, {
      title: 'loadgate: no baseline',
    });
}
