import * as core from '@actions/core';
import * as log from './log.js';
import type { GateReport } from '../gate/types.js';
import type { CountSummary } from '../metrics/histogram.js';
import { escapeMarkdown as md } from '../report/escape.js';
import { renderMarkdown } from '../report/markdown.js';

import type { Result } from '../result/types.js';
import type { BaselineNote } from './baseline.js';

/**
 * The report in parts: `head` is the verdict, the baseline used, the reasons and the rules
 * table; `details` follow, least important last, so a size-limited comment can drop them from
 * the end. Every string from a result or the API is escaped (renderMarkdown escapes its own).
 */
export interface ReportParts {
  head: string;
  details: string[];
}

export function reportParts(
  report: GateReport,
  baseline: Result | null,
  current: Result,
  note: BaselineNote,
  specPath: string,
): ReportParts {
  const [heading, ...rest] = renderMarkdown(report, baseline, current).split('\n');
  const source = `**Baseline used**: ${md(note.text)}${note.url ? ` ([run](${linkTarget(note.url)}))` : ''}  `;
  const [head, ...details] = [heading, '', source, ...rest].join('\n').split(/\n(?=#### )/);
  return { head: head.trimEnd(), details: [...details.map((d) => d.trimEnd()), delivered(current), facts(current, specPath)] };
}

/** A URL safe inside a markdown link's parentheses. */
const linkTarget = (url: string) => encodeURI(url).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);

export const joinParts = (p: ReportParts) => [p.head, ...p.details].join('\n\n');

/** Appends to the job summary; outside a runner (no GITHUB_STEP_SUMMARY) there is none to write. */
export async function writeJobSummary(markdown: string): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    log.info('GITHUB_STEP_SUMMARY is not set: no job summary written');
    return;
  }
  await core.summary.addRaw(markdown, true).write();
}

/** What an operational error leaves in the summary: it is not a verdict. */
export const errorMarkdown = (message: string) =>
  `### ⚠️ loadgate: ERROR\n\n${md(message)}\n\nNo verdict: the benchmark could not be run or judged.\n`;

const round = (x: number, digits = 2) => String(Math.round(x * 10 ** digits) / 10 ** digits);
const lengths = (s: CountSummary | null) => (s ? `mean ${round(s.mean, 1)} · p50 ${round(s.p50, 0)} · p99 ${round(s.p99, 0)}` : '—');

function delivered(r: Result): string {
  const w = r.requests.window;
  const classes = Object.entries(w.by_class)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  const goodput = r.goodput.fraction === null ? 'no requests' : `${r.goodput.requests} requests (${round(r.goodput.fraction * 100, 1)} %)`;
  return [
    '#### Workload and load delivered',
    '',
    '| | Requested | Delivered |',
    '|:--|--:|--:|',
    `| Arrival rate (req/s) | ${round(r.load.offered_rate_per_s)} | ${round(r.load.achieved_rate_per_s)} |`,
    `| Input tokens | ${lengths(r.workload.input_tokens.requested)} | ${lengths(r.workload.input_tokens.delivered)} |`,
    `| Output tokens | ${lengths(r.workload.output_tokens.requested)} | ${lengths(r.workload.output_tokens.delivered)} |`,
    '',
    `${md(r.load.label)}. Window ${round(r.load.window_s, 1)} s with ${w.scheduled} requests: ${md(classes || 'none')}. ` +
      `Throughput ${round(r.throughput.output_tokens_per_s, 1)} output tok/s, ${round(r.throughput.total_tokens_per_s, 1)} total tok/s, ${round(r.throughput.requests_per_s)} req/s; goodput ${goodput}. ` +
      `Output tokens counted from ${md(r.workload.token_source)}.`,
  ].join('\n');
}

/** The target without credentials, query or fragment: the host is what a reader needs. */
function targetText(r: Result): string {
  if (r.target.simulator) return 'embedded simulator';
  return URL.canParse(r.target.url) ? `${new URL(r.target.url).origin}${new URL(r.target.url).pathname}` : r.target.url;
}

function facts(r: Result, specPath: string): string {
  const e = r.environment;
  const rows: [string, string][] = [
    ['Tool', `${r.tool.name} ${r.tool.version}`],
    ['Spec', `${r.spec.name} · ${specPath} · hash ${r.spec_hash.slice(0, 12)}`],
    ['Model', `${r.target.model} (${r.target.api} API)`],
    ['Target', targetText(r)],
    ['Generator', `Node ${e.node} · ${e.platform} ${e.arch} · ${e.cpus} × ${e.cpu_model} · ${e.workers} worker(s)`],
    ['Recorded', r.created_at],
  ];
  if (r.replicates)
    rows.push([
      'Replicates',
      `${r.replicates.count} merged; TTFT p95 varied by ${round((r.replicates.cv['ttft_ms.p95'] ?? 0) * 100, 1)} % (CV) between them`,
    ]);
  return ['#### Run facts', '', '| | |', '|:--|:--|', ...rows.map(([k, v]) => `| ${k} | ${md(v)} |`)].join('\n');
}
