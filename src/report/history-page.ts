import type { HistoryCheck } from '../history/analyze.js';
import { escapeHtml as esc } from './escape.js';
import { historySection } from './history-charts.js';
import { REPORT_STYLE } from './html.js';

/**
 * A self-contained page of the history (inline CSS and SVG, no scripts, nothing fetched), to
 * publish next to the history file as github-action-benchmark publishes its index.html.
 */
export function renderHistoryPage(check: HistoryCheck): string {
  const title = `loadgate history — ${check.spec_name ?? 'no nights yet'}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<h1 class="${check.verdict}">${esc(title)}</h1>
<p>${check.verdict === 'fail' ? '❌ A metric got worse among the latest nights.' : '✅ No metric got worse among the latest nights.'}</p>
${historySection(check)}
</body>
</html>
`;
}
