import { compare } from '../../src/gate/compare.js';
import { defaultGate } from '../../src/spec/gate-schema.js';
import { escapeHtml, escapeMarkdown } from '../../src/report/escape.js';
import { renderGateText } from '../../src/report/gate-text.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { lognormal, synthesize } from '../result/synthetic.js';

const HOSTILE = 'bad | pipe <script>alert(1)</script> `code` @octocat #1 **bold** [link](http://x)';
const model = '<img src=x onerror=alert(1)>|m';
const base = synthesize({ n: 600, model, ttft: lognormal(200, 0.2), specName: 'chat `bench`' });
const cur = synthesize({
  n: 600,
  model,
  ttft: (rng) => lognormal(200, 0.2)(rng) * 1.5,
  specName: 'chat `bench`',
  detail: HOSTILE,
  outcome: (i) => (i % 100 === 0 ? 'http_5xx' : 'ok'),
});
const report = compare(base, cur, defaultGate());
const unescapedPipes = (line: string) => (line.match(/(?<!\\)\|/g) ?? []).length;

describe('markdown report', () => {
  const md = renderMarkdown(report, base, cur);

  test('has the verdict, the rules table and a mermaid chart', () => {
    expect(md.split('\n')[0]).toBe('### ❌ loadgate: FAIL — chat \\`bench\\`');
    expect(md).toContain('| Metric | Baseline | Current | Change | Rule | Status |');
    expect(md).toMatch(
      /\n\| TTFT p95 \| \d+ ms \| \d+ ms \| \+[\d.]+ ms \(\+[\d.]+ %\)<br><sub>noise \+[\d.]+ … \+[\d.]+ ms<\/sub> \| may rise ≤ 10 % or [\d.]+ ms \(what the runs resolve: 4 × the larger timestamp error bound [\d.]+ ms, plus the histogram's resolution\), whichever is larger \| ❌ fail \|\n/,
    );
    expect(md).toContain('```mermaid\nxychart-beta\n');
    expect(md).toMatch(/ {2}bar \[[\d., ]+\]\n {2}line \[[\d., ]+\]/);
    expect(md).toContain('<summary>Definitions</summary>');
  });

  test('escapes what came from the server and the spec', () => {
    expect(md).not.toContain('<script>');
    expect(md).not.toContain('<img');
    expect(md).toContain(
      'bad \\| pipe &lt;script&gt;alert(1)&lt;/script&gt; \\`code\\` @\u200boctocat #\u200b1 \\*\\*bold\\*\\* \\[link\\](http://x)',
    );
    expect(md).toContain('model &lt;img src=x onerror=alert(1)&gt;\\|m');
    for (const line of md.split('\n').filter((l) => l.startsWith('| '))) {
      const cells = unescapedPipes(line);
      expect([4, 5, 7]).toContain(cells); // errors: 3 columns, checks: 4, rules: 6
    }
  });

  test('without a baseline it says so', () => {
    const alone = renderMarkdown(compare(null, cur, defaultGate()), null, cur);
    expect(alone).toContain('**No baseline**: only absolute (SLO) rules were judged.');
    expect(alone).toContain('- no baseline: only absolute (SLO) rules were judged');
    expect(alone).not.toMatch(/^ {2}line /m);
  });
});

describe('HTML report', () => {
  const html = renderHtml(report, base, cur);

  test('is one self-contained page with inline SVG charts', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    const svgs = html.match(/<svg /g)!.length;
    expect(svgs).toBe(6);
    expect(html.match(/<\/svg>/g)!.length).toBe(svgs);
    expect(html.match(/<polyline /g)!.length).toBeGreaterThanOrEqual(10);
    for (const tag of ['table', 'tr', 'ul', 'dl', 'h2'])
      expect(html.split(`<${tag}>`).length + html.split(`<${tag} `).length - 1).toBe(html.split(`</${tag}>`).length);
    expect(html).not.toMatch(/<(script|link|iframe)\b/);
    expect(html).not.toMatch(/src=["']?http/);
  });

  test('escapes injected tags', () => {
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;|m');
  });

  test('renders runs with no samples without breaking', () => {
    const empty = synthesize({ n: 50, outcome: () => 'http_5xx' });
    const page = renderHtml(compare(null, empty, defaultGate()), null, empty);
    expect(page).toContain('no samples');
    expect(page.match(/<svg /g)!.length).toBe(page.match(/<\/svg>/g)!.length);
  });
});

describe('text and escaping helpers', () => {
  test('the terminal report lists the verdict and one line per rule', () => {
    const text = renderGateText(report);
    expect(text.split('\n')[0]).toBe('Verdict  FAIL');
    expect(text).toMatch(/^fail +TTFT p95 +\d+ ms +\d+ ms +\+[\d.]+ ms/m);
  });

  test('escapers', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(escapeMarkdown('a\nb | c')).toBe('a b \\| c');
  });
});
