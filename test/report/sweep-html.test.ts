import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { renderSweepHtml } from '../../src/report/sweep-html.js';
import { renderSweepMarkdown } from '../../src/report/sweep.js';
import { compareSweeps } from '../../src/capacity/gate.js';
import { curvePoints, sweepDocument, sweepSpec } from '../capacity/fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const HOSTILE = '<img src=x onerror=alert(1)> | `x` @octocat';
const spec = sweepSpec({}, { peak_rate: 100, batch_slots: 8 });
spec.name = HOSTILE;
const doc = sweepDocument(curvePoints([4, 8, 16, 24, 28, 32, 36, 48, 60]), spec);
const gate = compareSweeps(sweepDocument(curvePoints([4, 8, 16, 24, 28, 32, 36, 48, 60], 1.3), spec), doc);

/** Headless Debian chromium: a real browser, no network, a throwaway profile. CI must have it. */
const browserTest = existsSync(CHROMIUM) || process.env.CI === 'true' ? test : test.skip;

browserTest(
  'the sweep HTML loads in a real browser without console errors and draws its charts with data',
  async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (CI=true requires the browser test)`);
    const dir = mkdtempSync(join(tmpdir(), 'loadgate-sweep-html-'));
    const file = join(dir, 'sweep.html');
    writeFileSync(file, renderSweepHtml(doc, gate));
    const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-quic',
        '--no-first-run',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('dialog', (d) => problems.push(`dialog: ${d.message()}`));
      page.on('request', (r) => !r.url().startsWith('file:') && problems.push(`fetched ${r.url()}`));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      expect(await page.title()).toContain('loadgate sweep: FAIL');
      const charts = await page.$$eval('div.charts svg', (svgs) =>
        svgs.map((s) => ({
          title: s.getAttribute('aria-label'),
          width: s.getBoundingClientRect().width,
          lines: [...s.querySelectorAll('polyline')].map((p) => p.getAttribute('points')!.trim().split(/\s+/).length),
          dots: s.querySelectorAll('circle').length,
          marks: [...s.querySelectorAll('line.mark + text')].map((t) => t.textContent),
        })),
      );
      expect(charts.map((c) => c.title)).toEqual([
        'Throughput vs offered load (open-loop rate sweep)',
        'Output tokens/s vs offered load',
        expect.stringMatching(/^TTFT percentiles vs offered load( \(clipped at \d+ ms\))?$/),
        'E2E latency vs offered load',
      ]);
      for (const c of charts) {
        expect(c.width).toBeGreaterThan(300);
        expect(c.lines.length).toBeGreaterThan(0);
        for (const n of c.lines) expect(n).toBe(9); // one vertex per point
        expect(c.dots).toBeGreaterThanOrEqual(9);
        expect(c.marks).toEqual(expect.arrayContaining(['knee', 'capacity @ 99 % SLO']));
      }
      expect(charts[0].marks.join(' ')).toMatch(/saturation 40 req\/s/);
      expect(charts[2].marks.join(' ')).toMatch(/S = [\d.]+ ms/);
      // Findings, with the keys a script reads, and one row per point.
      const text = await page.locator('body').innerText();
      for (const key of [
        'analysis.service_floor_ms',
        'analysis.knee.rate_per_s',
        'analysis.saturation.requests_per_s',
        'analysis.capacity_at_slo.rate_per_s',
      ])
        expect(text).toContain(key);
      expect(await page.locator('table').last().locator('tr').count()).toBe(10);
      expect(await page.locator('img').count()).toBe(0); // the hostile name stayed text
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  },
  60_000,
);

test('the sweep markdown has the findings with their rules and one row per point, escaped', () => {
  const md = renderSweepMarkdown(doc, gate);
  expect(md.split('\n')[0]).toMatch(/^### ❌ loadgate sweep: FAIL — /);
  expect(md).not.toContain('<img');
  expect(md).toContain('| Knee | 32 req/s');
  expect(md).toMatch(/\| Replicas for 100 req\/s peak \| 4/);
  expect(md).toContain('`analysis.capacity_at_slo.rate_per_s`');
  expect(md.split('\n').filter((l) => /^\| \d+ \| (step|probe|fill|bisect|knee) \|/.test(l))).toHaveLength(9);
});
