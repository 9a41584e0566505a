import type { LatencySummary } from '../metrics/histogram.js';
import { appendAll, maxOf, num, round3 } from '../numbers.js';
import type { PatternPhase, PatternSection } from '../result/pattern.js';
import type { Result } from '../result/types.js';
import { escapeHtml as esc, escapeMarkdown as md } from './escape.js';
import { lineChart, type Band } from './svg.js';
import { numberTable } from './format.js';

/*
 * What a ramp, spike, steps or soak load showed (result.pattern) and why a run stopped early
 * (result.abort), for the console, the HTML report and markdown. Each renderer gets one call.
 */

const OFFERED = '#8a8a8a';
const ACHIEVED = '#2da44e';
const TTFT = '#1f6feb';
const PHASE_COLORS = ['#0969da', '#bf8700'];

const f1 = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : num(v));
const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)} %`);
const p95 = (s: LatencySummary | null) => f1(s?.p95);
const p99 = (s: LatencySummary | null) => f1(s?.p99);

/** The phases the chart shades: the spike, each step or slice, each segment (alternating tints). */
function bands(p: PatternSection): Band[] {
  return p.phases
    .filter((ph) => p.kind !== 'spike' || ph.name === 'spike')
    .map((ph, i) => ({ from: ph.from_s, to: ph.to_s, label: p.phases.length > 8 ? String(i + 1) : ph.name, color: PHASE_COLORS[i % 2] }));
}

/** Offered (λ) vs achieved (completions) rate, and TTFT p95 over the sliding window, phases shaded: two panels in one SVG. */
export function patternChart(r: Result): string | null {
  const p = r.pattern;
  if (!p) return null;
  const iv = p.interval_s;
  const at = (i: number) => round3(i * iv);
  const b = bands(p);
  const end = at(p.series.offered_per_s.length);
  const rates = lineChart(
    `Offered vs achieved rate — ${p.kind}`,
    [
      { name: 'offered λ(t)', points: p.series.offered_per_s.map((v, i) => [at(i), v]), color: OFFERED, dashed: true },
      {
        name: 'achieved (completed ok)',
        points: smooth(p.series.achieved_per_s, Math.round(p.sliding_window_s / iv / 2)).map((v, i) => [at(i), v]),
        color: ACHIEVED,
      },
    ],
    { label: 'seconds since start', extent: end },
    { label: 'requests/s' },
    [],
    b,
  );
  // Each window's p95 is drawn at the window's middle: the value at x covers requests sent within ±w/2 of x.
  const mid = p.sliding_window_s / 2;
  const ttftPoints = p.series.ttft_p95_ms.flatMap((v, i): [number, number][] => (v === null ? [] : [[at(i) + mid, v]]));
  const ttft = lineChart(
    `TTFT p95 over a sliding ${p.sliding_window_s} s window (by send time)`,
    [{ name: 'TTFT p95', points: ttftPoints, color: TTFT }],
    { label: 'seconds since start', extent: end },
    { label: 'ms' },
    [],
    b,
  );
  // Two 640×300 panels stacked in one standalone SVG.
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 640 600" width="640" height="600">${rates.replace('<svg ', '<svg y="0" ')}${ttft.replace('<svg ', '<svg y="300" ')}</svg>`;
}

/** Moving average over ±k buckets: per-bucket completions are lumpy at fine resolution. */
function smooth(v: number[], k: number): number[] {
  if (k <= 0) return v;
  return v.map((_, i) => {
    const slice = v.slice(Math.max(0, i - k), i + k + 1);
    return round3(slice.reduce((a, b) => a + b, 0) / slice.length);
  });
}

/** The pattern's verdict-like facts, one line each, for every renderer. */
export function patternFindings(r: Result): string[] {
  const out: string[] = [];
  const a = r.abort;
  if (a) out.push(`Aborted at ${a.at_s} s (${a.reason === 'error_rate' ? 'error rate' : 'over-saturation'}): ${a.detail}`);
  const p = r.pattern;
  if (!p) return out;
  if (p.spike) {
    const s = p.spike;
    out.push(
      `Spike ×${f1(p.phases[1]?.offered_rate_per_s / (p.phases[0]?.offered_rate_per_s || 1))} at ${s.at_s} s for ${s.for_s} s: TTFT p95 ${f1(s.pre_ttft_p95_ms)} ms before, ${p95(s.during.ttft_ms)} ms during, errors ${s.during.errors} (${pct(s.during.error_rate)})`,
      s.recovery_s === null ? `Recovery    did not recover within the window (${s.rule})` : `Recovery    ${s.recovery_s} s (${s.rule})`,
    );
  }
  if (p.steps) {
    out.push(
      `Saturation  ${p.steps.first_saturated ? `achieved fell below offered first in ${p.steps.first_saturated}` : 'achieved kept up with offered in every phase'} · ${p.steps.first_departed ? `TTFT p99 departed from the floor (${f1(p.steps.floor_ttft_p99_ms)} ms) in ${p.steps.first_departed}` : `TTFT p99 stayed near the floor (${f1(p.steps.floor_ttft_p99_ms)} ms)`}`,
    );
  }
  if (p.soak) {
    for (const [key, d] of Object.entries(p.soak.drift)) {
      out.push(`Drift       ${key}: ${d.verdict} — ${d.first === null ? '' : `${f1(d.first)} → ${f1(d.last)} ms; `}${d.reason}`);
    }
    const rss = p.soak.generator.rss_mb.filter((v): v is number => v !== null);
    if (rss.length > 1)
      out.push(`Generator   RSS ${f1(rss[0])} → ${f1(rss[rss.length - 1])} MB over the segments (the client's own memory)`);
  }
  return out;
}

const HEAD = ['Phase', 'From s', 'To s', 'Offered req/s', 'Achieved req/s', 'Sched', 'Errors', 'TTFT p95', 'TTFT p99', 'E2E p95', 'RSS MB'];
const cells = (ph: PatternPhase) => [
  ph.name,
  String(ph.from_s),
  String(ph.to_s),
  f1(ph.offered_rate_per_s),
  f1(ph.achieved_rate_per_s),
  String(ph.scheduled),
  `${ph.errors} (${pct(ph.error_rate)})`,
  p95(ph.ttft_ms),
  p99(ph.ttft_ms),
  p95(ph.e2e_ms),
  f1(ph.generator?.rss_mb),
];

export function patternConsole(r: Result): string[] {
  const findings = patternFindings(r);
  if (!r.pattern) return findings.length > 0 ? ['', ...findings] : [];
  const widths = HEAD.map((h, i) =>
    maxOf(
      r.pattern!.phases.map((ph) => cells(ph)[i].length),
      h.length,
    ),
  );
  const row = (c: string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  return [
    '',
    `Pattern     ${r.pattern.kind}, by intended send time (ms)`,
    row(HEAD),
    ...r.pattern.phases.map((ph) => row(cells(ph))),
    ...findings,
  ];
}

export function patternMarkdown(r: Result): string[] {
  const findings = patternFindings(r);
  const p = r.pattern;
  if (!p && findings.length === 0) return [];
  const out = [
    `#### ${p ? `Load pattern: ${p.kind}` : 'Run aborted'}`,
    '',
    ...findings.map((l) => `- ${md(l.replace(/\s{2,}/g, ' '))}`),
    '',
  ];
  if (!p) return out;
  appendAll(
    out,
    numberTable(
      HEAD,
      p.phases.map((ph) => cells(ph).map(md)),
    ),
  ).push('');
  // Mermaid has no shading or legend: two lines (offered, achieved) and the TTFT p95 line, at most 60 points.
  const step = Math.max(1, Math.ceil(p.series.offered_per_s.length / 60));
  const pick = (v: (number | null)[]) => v.filter((_, i) => i % step === 0).map((x) => (x === null ? 0 : x));
  const xs = pick(p.series.offered_per_s).map((_, i) => `"${Math.round(i * step * p.interval_s * 10) / 10}"`);
  out.push(
    '```mermaid',
    'xychart-beta',
    `  title "Offered vs achieved req/s (${p.kind})"`,
    `  x-axis [${xs.join(', ')}]`,
    '  y-axis "req/s"',
  );
  out.push(
    `  line [${pick(p.series.offered_per_s).join(', ')}]`,
    `  line [${pick(smooth(p.series.achieved_per_s, Math.round(p.sliding_window_s / p.interval_s / 2))).join(', ')}]`,
    '```',
    '',
  );
  out.push(
    '```mermaid',
    'xychart-beta',
    `  title "TTFT p95 (ms), sliding ${p.sliding_window_s} s"`,
    `  x-axis [${xs.join(', ')}]`,
    '  y-axis "ms"',
  );
  out.push(
    `  line [${pick(p.series.ttft_p95_ms).join(', ')}]`,
    '```',
    '',
    '<sub>x: seconds since start; first chart: offered λ(t), then achieved (completed ok).</sub>',
    '',
  );
  return out;
}

export function patternHtml(r: Result): string {
  const findings = patternFindings(r);
  const p = r.pattern;
  if (!p && findings.length === 0) return '';
  const list = `<ul>${findings.map((l) => `<li>${esc(l.replace(/\s{2,}/g, ' '))}</li>`).join('')}</ul>`;
  if (!p) return `<h2>Run aborted</h2>\n${list}`;
  const rows = p.phases
    .map(
      (ph) =>
        `<tr>${cells(ph)
          .map((c, i) => (i === 0 ? `<td>${esc(c)}</td>` : `<td class="n">${esc(c)}</td>`))
          .join('')}</tr>`,
    )
    .join('\n');
  return `<h2>Load pattern: ${esc(p.kind)}</h2>
${list}
<div class="charts">
${patternChart(r)}
</div>
<table>
<tr>${HEAD.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>
${rows}
</table>
<p class="sub">Phases by intended send time; achieved = successful completions that ended in the phase, per second; latencies in ms; RSS: the generator's own memory when the phase ended.</p>`;
}
