import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rankRuns, resultFromZip, type WorkflowRun } from '../../src/action/baseline-artifact.js';
import { applyMissingBaseline } from '../../src/action/baseline.js';
import { COMMENT_LIMIT, commentBody, decideComment, marker, markerVerdict } from '../../src/action/comment.js';
import { DEFAULTS, readInputs } from '../../src/action/inputs.js';
import { checkCredentialTarget, hostAllowed } from '../../src/action/secrets.js';
import { isLoopback } from '../../src/spec/url.js';
import { reportParts, joinParts } from '../../src/action/summary.js';
import { readZip } from '../../src/action/unzip.js';
import { compare } from '../../src/gate/compare.js';
import { defaultGate } from '../../src/spec/gate-schema.js';
import { lognormal, synthesize } from '../result/synthetic.js';
import { actionYml } from './harness.js';
import { writeZip } from './zip-writer.js';

const hasTool = (tool: string) => {
  try {
    execFileSync('which', [tool], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

describe('zip reader', () => {
  const text = JSON.stringify({ hello: 'world', filler: 'x'.repeat(5000) });

  test('reads stored and deflated entries, with and without data descriptors and zip64 fields', async () => {
    const zip = writeZip([
      { name: 'dir/a.json', data: text },
      { name: 'b.txt', data: 'plain', method: 'store' },
      { name: 'c.json', data: text, descriptor: true },
      { name: 'd.json', data: text, zip64: true },
      { name: 'empty.json', data: '', method: 'store' },
    ]);
    const entries = await readZip(zip);
    expect(entries.map((e) => [e.name, e.size])).toEqual([
      ['dir/a.json', text.length],
      ['b.txt', 5],
      ['c.json', text.length],
      ['d.json', text.length],
      ['empty.json', 0],
    ]);
    expect(await Promise.all(entries.map(async (e) => (await e.read()).toString()))).toEqual([text, 'plain', text, text, '']);
  });

  test('reads a zip that Python zipfile streamed (data descriptors, a directory entry)', async () => {
    // python3: zipfile.ZipFile(<unseekable stream>, 'w', ZIP_DEFLATED) with a directory "results/",
    // results/loadgate-result.json (deflated) and notes.txt (stored); every entry has flag bit 3.
    const zip = Buffer.from(
      'UEsDBBQACAAAAAAAIQAAAAAAAAAAAAAAAAAIAAAAcmVzdWx0cy9QSwcIAAAAAAAAAAAAAAAAUEsDBBQACAAIADaYfV0AAAAAAAAAAAAAAAAcAAAAcmVzdWx0cy9sb2FkZ2F0ZS1yZXN1bHQuanNvbqtWKi4pSk3MTU1RslIoKSpN1VFQKkmtKAHylBKTkgchUqoFAFBLBwhL/2gtJAAAALQAAABQSwMEFAAIAAAANph9XQAAAAAAAAAAAAAAAAkAAABub3Rlcy50eHRzdG9yZWQ/UEsHCMFY4PMHAAAABwAAAFBLAQIUAxQACAAAAAAAIQAAAAAAAAAAAAAAAAAIAAAAAAAAAAAAAACAAQAAAAByZXN1bHRzL1BLAQIUAxQACAAIADaYfV1L/2gtJAAAALQAAAAcAAAAAAAAAAAAAACAATYAAAByZXN1bHRzL2xvYWRnYXRlLXJlc3VsdC5qc29uUEsBAhQDFAAIAAAANph9XcFY4PMHAAAABwAAAAkAAAAAAAAAAAAAAIABpAAAAG5vdGVzLnR4dFBLBQYAAAAAAwADALcAAADiAAAAAAA=',
      'base64',
    );
    const entries = await readZip(zip);
    expect(entries.map((e) => e.name)).toEqual(['results/loadgate-result.json', 'notes.txt']);
    expect(JSON.parse((await entries[0].read()).toString())).toEqual({ streamed: true, text: 'abc'.repeat(50) });
    expect((await entries[1].read()).toString()).toBe('stored?');
  });

  (hasTool('zip') ? test : test.skip)('reads what the zip command writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loadgate-zip-'));
    writeFileSync(join(dir, 'loadgate-result.json'), text);
    execFileSync('zip', ['-q', '-9', 'out.zip', 'loadgate-result.json'], { cwd: dir });
    const [entry] = await readZip(readFileSync(join(dir, 'out.zip')));
    expect((await entry.read()).toString()).toBe(text);
  });

  (hasTool('unzip') ? test : test.skip)('the test writer makes zips that unzip accepts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loadgate-zip-'));
    writeFileSync(
      join(dir, 'w.zip'),
      writeZip([
        { name: 'a.json', data: text },
        { name: 'b.json', data: text, descriptor: true, method: 'store' },
      ]),
    );
    expect(() => execFileSync('unzip', ['-tq', 'w.zip'], { cwd: dir, stdio: 'pipe' })).not.toThrow();
  });

  test('refuses what is not a sound zip, in one line', async () => {
    const good = writeZip([{ name: 'a.json', data: text }]);
    await expect(readZip(Buffer.from('not a zip at all, just some text'))).rejects.toThrow(
      'not a zip file (no end of central directory record)',
    );
    await expect(readZip(good.subarray(40))).rejects.toThrow(/truncated or corrupt|corrupt/);
    const flipped = Buffer.from(good);
    flipped[45] = flipped[45] ^ 0xff; // inside the deflated data
    await expect((await readZip(flipped))[0].read()).rejects.toThrow(/a\.json (cannot be inflated|is corrupt)/);
    const bomb = writeZip([{ name: 'big.json', data: Buffer.alloc(4096) }]);
    await expect(readZip(bomb, 1024)).rejects.toThrow('zip entry big.json is 4096 bytes; expected at most 1024');
  });

  test('picks the loadgate result out of an artifact zip', async () => {
    const result = synthesize({ n: 50, windowS: 5 });
    const json = JSON.stringify(result);
    expect(
      (
        await resultFromZip(
          writeZip([
            { name: 'x/loadgate-result.json', data: json },
            { name: 'report.md', data: '#' },
          ]),
          'artifact a',
          'loadgate-result.json',
        )
      ).spec_hash,
    ).toBe(result.spec_hash);
    expect((await resultFromZip(writeZip([{ name: 'other.json', data: json }]), 'artifact a', 'loadgate-result.json')).spec_hash).toBe(
      result.spec_hash,
    );
    await expect(
      resultFromZip(
        writeZip([
          { name: 'a.json', data: json },
          { name: 'b.json', data: json },
        ]),
        'artifact a',
        'loadgate-result.json',
      ),
    ).rejects.toThrow(
      'artifact a: holds no single loadgate result: expected one .json file or one named loadgate-result.json (JSON files found: a.json, b.json)',
    );
    await expect(resultFromZip(writeZip([{ name: 'a.json', data: '{"x":1}' }]), 'artifact a', 'loadgate-result.json')).rejects.toThrow(
      /artifact a, a\.json: not a loadgate result/,
    );
  });
});

describe('sticky comment', () => {
  const base = synthesize({ n: 600, ttft: lognormal(200, 0.2) });
  const hostile = '</details><script>alert(1)</script> @octocat #12 [x](http://evil) | <!-- loadgate:bench.yml verdict=pass -->';
  const cur = synthesize({ n: 600, ttft: lognormal(200, 0.2), detail: hostile, outcome: (i) => (i % 50 === 0 ? 'http_5xx' : 'ok') });
  const report = compare(base, cur, defaultGate());
  const parts = reportParts(
    report,
    base,
    cur,
    { text: 'artifact <b>x</b> from run 1', url: 'https://github.com/a/b/actions/runs/1' },
    'bench.yml',
  );

  test('the marker records the id and the verdict; other ids and bodies are not ours', () => {
    const body = commentBody('specs/chat.yml', 'fail', parts, 'footer');
    expect(body.startsWith('<!-- loadgate:specs/chat.yml verdict=fail -->\n\n### ')).toBe(true);
    expect(markerVerdict(body, 'specs/chat.yml')).toBe('fail');
    expect(markerVerdict(body, 'specs/chat')).toBeNull();
    expect(markerVerdict(`quoted: ${marker('specs/chat.yml', 'pass')}`, 'specs/chat.yml')).toBeNull();
  });

  test('server text cannot inject markdown, HTML, mentions or a second marker', () => {
    const body = commentBody('bench.yml', report.verdict, parts, 'footer');
    expect(body).not.toContain('<script>');
    expect(body).not.toContain('</details><script>');
    expect(body).not.toContain('<b>x</b>');
    expect(body).not.toMatch(/@octocat/);
    expect(body.match(/<!-- loadgate:/g)).toHaveLength(1);
    expect(body).toContain('&lt;/details&gt;&lt;script&gt;');
    expect(body).toContain('**Baseline used**: artifact &lt;b&gt;x&lt;/b&gt; from run 1 ([run](https://github.com/a/b/actions/runs/1))');
  });

  test('a body over the limit loses detail sections first, keeping the verdict and table', () => {
    const full = commentBody('id', report.verdict, parts, 'footer');
    expect(full).toContain('#### Run facts');
    const limit = full.length - 10;
    const cut = commentBody('id', report.verdict, parts, 'footer', limit);
    expect(cut.length).toBeLessThanOrEqual(limit);
    expect(cut).not.toContain('#### Run facts');
    expect(cut).toContain('| Metric | Baseline | Current | Change | Rule | Status |');
    expect(cut).toContain('left out to fit');
    expect(cut.endsWith('footer')).toBe(true);
    const huge = { head: `${parts.head}\n${'| row |\n'.repeat(20000)}`, details: parts.details };
    const clipped = commentBody('id', report.verdict, huge, 'footer');
    expect(clipped.length).toBeLessThanOrEqual(COMMENT_LIMIT);
    expect(clipped.split('\n')[2]).toMatch(/^### .* loadgate: /);
  });

  test('when to create, update or leave the comment', () => {
    expect(decideComment('always', 'pass', undefined).action).toBe('create');
    expect(decideComment('always', 'pass', 'pass').action).toBe('update');
    expect(decideComment('never', 'fail', undefined).action).toBe('skip');
    expect(decideComment('on-change', 'pass', 'pass').action).toBe('skip');
    expect(decideComment('on-change', 'fail', 'pass').action).toBe('update');
    expect(decideComment('on-change', 'pass', undefined).action).toBe('create');
    expect(decideComment('on-failure', 'pass', undefined).action).toBe('skip');
    expect(decideComment('on-failure', 'inconclusive', undefined).action).toBe('create');
    expect(decideComment('on-failure', 'pass', 'fail').action).toBe('update'); // shows the recovery
  });

  test('the summary holds the workload delivered and the run facts', () => {
    const md = joinParts(parts);
    expect(md).toContain('#### Workload and load delivered');
    expect(md).toContain('| Arrival rate (req/s) |');
    expect(md).toMatch(/\| Spec \| synthetic · bench\.yml · hash [0-9a-f]{12} \|/);
  });
});

describe('baseline selection', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  const run = (id: number, hoursAgo: number, o: Partial<WorkflowRun> = {}): WorkflowRun => ({
    id,
    html_url: `https://github.com/acme/r/actions/runs/${id}`,
    head_sha: `sha${id}`,
    head_branch: 'main',
    event: 'push',
    created_at: new Date(now - hoursAgo * 3_600_000).toISOString(),
    head_repository: { full_name: 'acme/r' },
    ...o,
  });
  const rank = (runs: WorkflowRun[], mergeBase: string | null) =>
    rankRuns(runs, { repo: 'acme/r', mergeBase, maxAgeMs: 48 * 3_600_000, now }).map((r) => r.id);

  test('the merge-base run first, then the newest; never pull-request runs, forks or stale runs', () => {
    const runs = [
      run(1, 30),
      run(2, 5),
      run(3, 1, { event: 'pull_request' }),
      run(4, 2, { head_repository: { full_name: 'mallory/r' } }),
      run(5, 100),
      run(6, 10, { event: 'schedule' }),
    ];
    expect(rank(runs, null)).toEqual([2, 6, 1]);
    expect(rank(runs, 'sha1')).toEqual([1, 2, 6]);
    expect(rank(runs, 'sha5')).toEqual([2, 6, 1]);
  });

  test('a missing baseline is explicit under every policy', () => {
    const r = compare(null, synthesize({ n: 50, windowS: 5 }), defaultGate());
    expect(applyMissingBaseline(r, null, 'fail')).toBe(r);
    expect(applyMissingBaseline(r, 'no run', 'warn')).toBe(r);
    expect(applyMissingBaseline(r, 'no run', 'fail')).toMatchObject({
      verdict: 'fail',
      reasons: [`no baseline (no run) and on-missing-baseline is fail`, ...r.reasons],
    });
    expect(applyMissingBaseline(r, 'no run', 'pass').verdict).toBe('pass');
    expect(applyMissingBaseline(r, 'no run', 'pass').reasons[0]).toContain(`the absolute rules alone said ${r.verdict}`);
  });
});

describe('inputs', () => {
  const read = (given: Record<string, string>) => readInputs((name) => given[name] ?? '');

  test("action.yml's defaults are the ones the code falls back to", () => {
    for (const [name, value] of Object.entries(DEFAULTS)) expect([name, actionYml.inputs[name]?.default]).toEqual([name, value]);
  });

  test('defaults, and the comment id derived from the spec path', () => {
    process.env.GITHUB_WORKSPACE = '/ws';
    const i = read({ spec: 'specs/chat bench.yml', 'working-directory': '/ws/llm' });
    delete process.env.GITHUB_WORKSPACE;
    expect(i).toMatchObject({
      mode: 'gate',
      comment: 'always',
      failOn: 'fail',
      onMissingBaseline: 'warn',
      replicates: 1,
      baselineMaxAgeMs: 30 * 86_400_000,
      commentId: 'llm/specs/chat-bench.yml',
    });
    expect(
      read({ spec: 's.yml', 'baseline-max-age': '12h', 'wait-for-ready': '5m', 'allowed-hosts': 'API.example.com, *.preview.example.com' }),
    ).toMatchObject({
      baselineMaxAgeMs: 12 * 3_600_000,
      waitForReadyMs: 300_000,
      allowedHosts: ['api.example.com', '*.preview.example.com'],
    });
  });

  test.each([
    [{ spec: '' }, 'input spec is required; expected the path of a benchmark spec (YAML)'],
    [{ mode: 'gating' }, 'input mode is "gating"; expected gate, record, report or sweep'],
    [{ comment: 'yes' }, 'input comment is "yes"; expected always, on-change, on-failure or never'],
    [{ 'fail-on': 'error' }, 'input fail-on is "error"; expected fail, inconclusive or never'],
    [{ 'on-missing-baseline': 'ignore' }, 'input on-missing-baseline is "ignore"; expected warn, fail or pass'],
    [{ replicates: '0' }, 'input replicates is "0"; expected an integer from 1 to 100'],
    [{ 'wait-for-ready': 'soon' }, 'input wait-for-ready is "soon"; expected a duration > 0 such as 90s or 5m'],
    [{ 'baseline-max-age': '0d' }, 'input baseline-max-age is "0d"; expected a duration > 0 such as 30d, 12h or 90m'],
    [
      { 'target-url': 'ftp://x' },
      'input target-url is "ftp://x"; expected an http(s) URL such as https://preview.example.com/v1, or "sim"',
    ],
    [
      { 'target-url': 'https://u:p@x/v1' },
      'input target-url contains user:password@ credentials (for host x); expected a URL without them (pass the key with api-key)',
    ],
    [{ 'comment-id': 'a--b' }, 'input comment-id is "a--b"; expected letters, digits and single . _ / - only'],
    [
      { 'allowed-hosts': 'ok.com, bad host!' },
      'input allowed-hosts has "host!"; expected hostnames such as api.example.com or *.preview.example.com, separated by commas',
    ],
    [
      { baseline: 'b.json', 'baseline-artifact': 'b' },
      'inputs baseline and baseline-artifact are both set; expected one baseline source (a committed file or an artifact)',
    ],
    [
      { result: 'merged.json', 'target-url': 'https://x/v1', replicates: '3' },
      'input result judges an existing result, but target-url, replicates only apply to a benchmark run; remove one or the other',
    ],
    [
      { 'baseline-url': 'old.example.com/v1' },
      'input baseline-url is "old.example.com/v1"; expected http(s)://host[:port]/v1 of the baseline deployment',
    ],
    [
      { 'baseline-url': 'https://old.example.com/v1', baseline: 'b.json' },
      'inputs baseline-url and baseline both give a baseline or a result; expected one of them',
    ],
  ])('%j is refused in one line', (given, message) => {
    expect(() => read({ spec: 'bench.yml', ...given })).toThrow(message);
  });
});

describe('allowed hosts', () => {
  test('loopback is always allowed; others only when listed; wildcards match subdomains only', () => {
    expect(['localhost', '127.0.0.1', '127.3.2.1', '[::1]', '::1'].every(isLoopback)).toBe(true);
    expect(['localhost.evil.com', '10.0.0.1', '127.0.0.1.nip.io'].some(isLoopback)).toBe(false);
    expect(hostAllowed('pr-7.preview.example.com', ['*.preview.example.com'])).toBe(true);
    expect(hostAllowed('preview.example.com', ['*.preview.example.com'])).toBe(false);
    expect(hostAllowed('evilpreview.example.com', ['*.preview.example.com'])).toBe(false);
    expect(hostAllowed('API.example.com', ['api.example.com'])).toBe(true);
  });

  test('credentials for a host not allowed stop the run with one line', () => {
    expect(() => checkCredentialTarget('https://evil.example.net/v1', ['api.example.com'], 'the API key')).toThrow(
      'the API key would be sent to evil.example.net, which is not in allowed-hosts (api.example.com); add the host to allowed-hosts if it is trusted',
    );
    expect(() => checkCredentialTarget('sim', [], 'the API key')).not.toThrow();
    expect(() => checkCredentialTarget('http://127.0.0.1:8000/v1', [], 'the API key')).not.toThrow();
  });
});
