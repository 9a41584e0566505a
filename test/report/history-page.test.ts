import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { checkHistory } from '../../src/history/analyze.js';
import { DEFAULT_CHECK, type HistoryLine } from '../../src/history/types.js';
import { renderHistoryPage } from '../../src/report/history-page.js';
import { historyMarkdown, mermaidTrend } from '../../src/report/history-markdown.js';
import { renderHtml } from '../../src/report/html.js';
import { compare } from '../../src/gate/compare.js';
import { gateOf } from '../../src/spec/gate-schema.js';
import { createRng, normal } from '../../src/rng.js';
import { synthesize } from '../result/synthetic.js';

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = '<img src=x onerror=alert(1)> | `x` "q"';
const NIGHTS = 24;

/** 24 nights: TPOT p50 steps +30 % at night 14, throughput stays, the error rate is charted only. */
function nights(): HistoryLine[] {
  const rng = createRng(4);
  const fig = (value: number, better: 'lower' | 'higher', unit: 'ms' | 'tok/s') => ({
    value,
    lower: value * 0.97,
    upper: value * 1.03,
    unit,
    better,
    timestamp_error_ms: 0.2,
  });
  return Array.from({ length: NIGHTS }, (_, i) => ({
    v: 1,
    run_id: `r${i}`,
    date: `2026-11-${String(i + 1).padStart(2, '0')}T02:00:00.000Z`,
    commit: `${String(i).padStart(4, '0')}abc${HOSTILE}`,
    ref: 'refs/heads/main',
    spec_name: HOSTILE,
    spec_hash: 'h',
    runner: null,
    verdict: 'pass',
    metrics: {
      tpot_p50: fig(10 * (i >= 14 ? 1.3 : 1) * (1 + 0.03 * normal(rng)), 'lower', 'ms'),
      output_tokens_per_s: fig(500 * (1 + 0.03 * normal(rng)), 'higher', 'tok/s'),
      error_rate: { value: 0, lower: null, upper: null, unit: 'fraction', better: 'lower', timestamp_error_ms: null },
    },
  }));
}

const check = checkHistory(nights(), DEFAULT_CHECK);
const browserTest = existsSync(CHROMIUM) || process.env.CI === 'true' ? test : test.skip;

browserTest(
  'the history page loads in a real browser, fetches nothing, and draws one trend per metric with its change point marked',
  async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (CI=true requires the browser test)`);
    expect(check.change_points.map((c) => [c.metric, c.index])).toEqual([['tpot_p50', 14]]);
    const dir = mkdtempSync(join(tmpdir(), 'loadgate-history-html-'));
    const file = join(dir, 'index.html');
    writeFileSync(file, renderHistoryPage(check));
    const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'],
    });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('dialog', (d) => problems.push(`dialog: ${d.message()}`));
      page.on('request', (r) => !r.url().startsWith('file:') && problems.push(`fetched ${r.url()}`));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      expect(await page.title()).toBe(`loadgate history — ${HOSTILE}`);
      const charts = await page.$$eval('figure.trend', (figs) =>
        figs.map((f) => {
          const svg = f.querySelector('svg')!;
          return {
            metric: f.getAttribute('data-metric'),
            title: svg.getAttribute('aria-label'),
            width: svg.getBoundingClientRect().width,
            firstLine: svg.querySelector('polyline')!.getAttribute('points')!.trim().split(/\s+/).length,
            dots: svg.querySelectorAll('circle').length,
            marks: [...svg.querySelectorAll('line.mark + text')].map((t) => t.textContent),
            markX: [...svg.querySelectorAll('line.mark')].map((l) => Number(l.getAttribute('x1'))),
            dotX: [...svg.querySelectorAll('circle')].map((c) => Number(c.getAttribute('cx'))),
          };
        }),
      );
      expect(charts.map((c) => c.metric)).toEqual(['tpot_p50', 'output_tokens_per_s', 'error_rate']);
      for (const c of charts) {
        expect(c.width).toBeGreaterThan(300);
        expect(c.firstLine).toBe(NIGHTS);
        expect(c.dots).toBe(NIGHTS);
      }
      const tpot = charts[0];
      expect(tpot.title).toBe('TPOT p50 (ms)');
      expect(tpot.marks).toEqual([expect.stringMatching(/^\+(2\d|3\d) %$/)]);
      expect(tpot.markX[0]).toBeCloseTo(tpot.dotX[14], 0); // the mark stands on night 14's dot
      expect(charts[1].marks).toEqual([]);
      const rows = await page.locator('table.change-points tr').count();
      expect(rows).toBe(2); // header + the one change point
      expect(await page.locator('body').innerText()).toMatch(/TPOT p50 \+\d+(\.\d)? % since 2026-11-15, commit 0014abc/);
      expect(await page.locator('img').count()).toBe(0); // hostile text stayed text
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  },
  60_000,
);

test('the job summary trend is a mermaid xychart-beta with one value per night and the change point on the axis', () => {
  const s = check.series.find((x) => x.metric === 'tpot_p50')!;
  const chart = mermaidTrend(check, s).split('\n');
  expect(chart[0]).toBe('```mermaid');
  expect(chart[1]).toBe('xychart-beta');
  expect(chart[2]).toBe('  title "TPOT p50 (ms) by night"');
  const axis = /^ {2}x-axis \[(.*)\]$/.exec(chart[3])![1].split(', ');
  expect(axis).toHaveLength(NIGHTS);
  expect(axis[14]).toBe('"14 ▲"');
  expect(axis.filter((a) => a.includes('▲') || a.includes('▼'))).toHaveLength(1);
  expect(chart[4]).toMatch(/^ {2}y-axis "ms" [\d.]+ --> [\d.]+$/);
  const values = /^ {2}line \[(.*)\]$/.exec(chart[5])![1].split(', ').map(Number);
  expect(values).toEqual(s.points.map((p) => Math.round(p.value * 1000) / 1000));
  const md = historyMarkdown(check, ['output_tokens_per_s']);
  expect(md.split('\n')[0]).toBe('#### History: 24 nights'); // night 14 is not among the latest 5: reported, not failing
  expect(md).toMatch(/^- TPOT p50 \+\d+(\.\d)? % since 2026-11-15, commit 0014abc/m);
  expect(md).toContain('- Output tokens/s: no change point in the last 24 nights');
  expect(md).not.toContain('<img');
  expect(md.match(/```mermaid/g)).toHaveLength(2); // the searched metrics; the error rate is not searched
});

test('the HTML report carries the history section when given one', () => {
  const r = synthesize({ seed: 2, n: 200 });
  const report = compare(null, r, gateOf(r.spec));
  const html = renderHtml(report, null, r, check);
  expect(html).toContain('<h2>History: 24 nights</h2>');
  expect(html.match(/<figure class="trend"/g)).toHaveLength(3);
  expect(renderHtml(report, null, r)).not.toContain('History:');
});
