import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import * as log from './log.js';
import type { SweepDocument } from '../capacity/document.js';
import { compareSweeps } from '../capacity/gate.js';
import { readSweep } from '../capacity/load.js';
import type { Verdict } from '../gate/types.js';
import { renderSweepHtml } from '../report/sweep-html.js';
import { renderSweepMarkdown } from '../report/sweep.js';
import { writeFileAtomic } from '../result/write.js';
import { runSweep } from '../sweep/run.js';
import { loadActionSpec } from './benchmark.js';
import { postReportComment, reportFooter } from './comment.js';
import { interruptible, type StepContext, type StepOutcome } from './step.js';
import { writeJobSummary } from './summary.js';

/**
 * mode: sweep, for release workflows: run the spec's sweep (or judge the sweep document in
 * `result`), gate it against the baseline sweep in `baseline` (capacity at SLO, knee, saturation
 * per sweep.gate), and report. Without a baseline file nothing is judged: the sweep is recorded
 * at result-path for the next release to compare against, and on-missing-baseline decides.
 * On a pull request the report is also the sticky comment, under its own id (`<comment-id>:sweep`)
 * so that it never overwrites the gate's comment for the same spec.
 */
export async function sweepStep(step: StepContext): Promise<StepOutcome> {
  const { inputs, ctx } = step;
  const baselinePath = inputs.baseline;
  const baseline = baselinePath && existsSync(baselinePath) ? readSweep(baselinePath) : null; // a broken file fails before the sweep
  let doc: SweepDocument;
  if (inputs.result) doc = readSweep(inputs.result);
  else {
    const resolved = loadActionSpec(inputs);
    if (!resolved.spec.sweep) throw new Error(`input mode is sweep, but ${inputs.spec} has no sweep section; add e.g. "sweep: auto"`);
    doc = await interruptible((signal) =>
      runSweep({ resolved, signal, onPointDone: (p) => log.info(`point ${p.number} (${p.role}, ${p.load}) measured`) }),
    );
    writeFileAtomic(inputs.resultPath, `${JSON.stringify(doc, null, 2)}\n`);
  }
  const gate = baseline ? compareSweeps(baseline, doc) : null;
  const missing = baselinePath ? (baseline ? null : `baseline sweep ${baselinePath} does not exist`) : 'no baseline input';
  const verdict: Verdict = gate
    ? gate.verdict
    : doc.interrupted || inputs.onMissingBaseline === 'warn'
      ? 'inconclusive'
      : inputs.onMissingBaseline;
  const markdown = renderSweepMarkdown(doc, gate);
  const note = gate ? '' : `\n**No baseline sweep** (${missing}): nothing was judged; this sweep is at ${inputs.resultPath}.\n`;
  const htmlPath = inputs.reportPath.replace(/(\.md)?$/, '.html');
  writeFileAtomic(inputs.reportPath, `${markdown}${note}`);
  writeFileAtomic(htmlPath, renderSweepHtml(doc, gate));
  await writeJobSummary(`${markdown}${note}`);

  const commentUrl = ctx.pullRequest
    ? await postReportComment(
        step,
        `${inputs.commentId!}:sweep`,
        ctx.pullRequest.number,
        verdict,
        { head: `${markdown}${note}`, details: [] },
        reportFooter(ctx),
      )
    : undefined;
  if (!ctx.pullRequest) log.info(`Not a pull request event (${ctx.eventName || 'no event'}): no comment`);

  const a = doc.analysis;
  const outputs: Record<string, number | string | null> = {
    verdict,
    'comment-url': commentUrl ?? null,
    'result-path': inputs.result ? resolve(inputs.result) : resolve(inputs.resultPath),
    'report-path': resolve(inputs.reportPath),
    'html-report-path': resolve(htmlPath),
    'service-floor-ms': a.service_floor_ms,
    'knee-rate-per-s': a.knee.rate_per_s,
    'saturation-requests-per-s': a.saturation.requests_per_s,
    'capacity-at-slo-rate-per-s': a.capacity_at_slo.rate_per_s,
  };
  for (const r of gate?.rules ?? [])
    if (r.status === 'fail') log.error(`${r.rule}: ${r.reason}`, { title: `loadgate: ${r.metric} regression` });
  if (!gate) log.warning(`no baseline sweep (${missing}): nothing was judged`, { title: 'loadgate: no baseline sweep' });
  log.info([`Verdict: ${verdict.toUpperCase()}`, ...(gate?.reasons ?? []).map((r) => `  ${r}`)]);
  const fails = inputs.failOn !== 'never' && (verdict === 'fail' || (inputs.failOn === 'inconclusive' && verdict === 'inconclusive'));
  return {
    outputs: Object.fromEntries(Object.entries(outputs).map(([name, value]) => [name, value ?? ''])),
    ...(fails ? { failure: `loadgate sweep verdict ${verdict.toUpperCase()}: ${gate?.reasons[0] ?? missing ?? ''}`, exitCode: 1 } : {}),
  };
}
