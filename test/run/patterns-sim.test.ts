import { loadPlan } from '../../src/arrivals/load-plan.js';
import { deriveSeed } from '../../src/rng.js';
import { buildSchedule } from '../../src/arrivals/schedule.js';
import { compare } from '../../src/gate/compare.js';
import { parseResult } from '../../src/result/load.js';
import { renderConsoleReport } from '../../src/report/console.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { runBenchmark } from '../../src/run/run.js';
import { parseSpec } from '../../src/spec/load.js';
import type { ResolvedSpec } from '../../src/spec/types.js';

/**
 * Paced mode: each request holds one of the server's slots for TTFT + (tokens − 1) × ITL and
 * waits FIFO for a slot beyond them. Below capacity with constant arrivals nothing waits, so
 * TTFT is the configured one and every change in it is the queue (or the drift), not jitter.
 */
function simSpec(sim: object, load: string, gate = '') {
  return parseSpec(
    `target: { url: sim, sim: ${JSON.stringify({ mode: 'paced', output_tokens: { dist: 'fixed', value: 20 }, ...sim })} }
workload: { seed: 3, input_tokens: 50, output_tokens: 20, calibrate: off }
load: { ${load} }
${gate}`,
    'sim.yml',
    {},
  );
}

/** The arrivals the run planned: its own schedule, rebuilt from the same plan and seed. */
function planned(r: ResolvedSpec): number {
  const plan = loadPlan(r);
  const { load, workload } = r.spec;
  return buildSchedule({
    kind: load.arrival,
    curve: plan.curve,
    burstiness: load.burstiness,
    seed: deriveSeed(workload.seed, 'arrivals'),
    durationMs: plan.totalMs,
  }).length;
}

/**
 * 10 slots × (200 ms + 19 × 3 ms): the server completes 10 / 0.257 s ≈ 39 req/s. A TTFT of
 * 200 ms makes the 10 % recovery band 20 ms wide, well clear of a busy machine's timer jitter.
 */
const SLOTS = { slots: 10, ttft_ms: 200, itl_ms: 3 };
const CAPACITY = 10 / 0.257;

test('a 3× spike past capacity reports a finite recovery time that grows with the spike', async () => {
  const base = Math.round(CAPACITY * 0.46); // 18 req/s; the spike's 54 req/s is 1.4 × capacity
  const recovery: number[] = [];
  for (const forS of [0.75, 2]) {
    const resolved = simSpec(
      SLOTS,
      `arrival: constant, rate: ${base}, warmup: 1s, steady: 9s, cooldown: 0s, pattern: { kind: spike, multiplier: 3, at: 2s, for: ${forS}s }`,
    );
    const r = await runBenchmark({ resolved });
    const s = r.pattern!.spike!;
    // Before the spike nothing queues (18 req/s on 10 slots of 0.257 s): TTFT is the sim's 200 ms,
    // late by what this shared loop adds: the sim's first-token timer and the client's read each
    // wait at most the loop's delay, which a busy machine lengthens (its p99, measured by the run).
    expect(s.pre_ttft_p95_ms).toBeLessThan(240 + 2 * r.generator.event_loop_delay_ms.p99);
    // During the spike the queue builds: its requests wait far longer than before it.
    expect(s.during.ttft_ms!.p95).toBeGreaterThan(1.5 * s.pre_ttft_p95_ms!);
    expect(s.during.errors).toBe(0);
    expect(s.recovery_s).not.toBeNull();
    expect(s.recovery_s).toBeGreaterThan(0);
    recovery.push(s.recovery_s!);
    const p = r.pattern!;
    expect(p.phases.map((x) => x.name)).toEqual(['pre-spike', 'spike', 'post-spike']);
    expect(p.phases[1].offered_rate_per_s).toBe(3 * base);
    expect(Object.values(r.requests.by_class).reduce((a, b) => a + b, 0)).toBe(planned(resolved));
  }
  // A longer spike leaves a longer queue behind: the drain takes longer.
  expect(recovery[1]).toBeGreaterThan(recovery[0]);
}, 60_000);

describe('a soak judges drift between its first and last segment', () => {
  // p50s: with 20 req/s a 2 s segment has 40 samples, enough for a median under the gate's tail rule.
  const gate = `gate: { latency: { ttft_p50: { max_increase_pct: 5, max_increase_ms: 1 } }, soak: { max_drift_pct: 5 } }`;
  const load = 'arrival: constant, rate: 20, warmup: 1s, steady: 6s, cooldown: 0s, soak: { segments: 3 }';
  const sim = { slots: 16, ttft_ms: 200, itl_ms: 2, seed: 4 };

  test('a server that slows by 20 % over the run drifts', async () => {
    // 20 % over the ~7 s the run lasts: 0.2 × 60 / 7 per minute.
    const r = await runBenchmark({ resolved: simSpec({ ...sim, drift: { per_minute: (0.2 * 60) / 7 } }, load, gate) });
    const d = r.pattern!.soak!.drift.ttft_p50;
    expect(d.verdict).toBe('drift');
    expect(d.change!.rel!).toBeGreaterThan(0.05);
    expect(d.ci!.lower).toBeGreaterThan(d.bound!);
    expect(r.pattern!.phases.every((p) => p.generator !== null && p.generator.rss_mb > 0)).toBe(true);
    const report = compare(null, r, r.spec.gate);
    expect(report.rules.find((x) => x.id === 'soak.drift.ttft_p50')!.status).toBe('fail');
    // The drift fails the gate — unless a check that blocks rules on measurements failed (timing limits at
    // their defaults only inform: each rule is judged against the generator's error bound instead).
    const blocked = report.checks.some((c) => !c.ok && (c.effect === 'blocks' || c.effect === 'measurements'));
    expect(report.verdict).toBe(blocked ? 'inconclusive' : 'fail');
  }, 30_000);

  test('a steady server does not', async () => {
    const r = await runBenchmark({ resolved: simSpec(sim, load, gate) });
    const d = r.pattern!.soak!.drift.ttft_p50;
    expect(d.verdict).toBe('none');
    expect(Math.abs(d.change!.abs)).toBeLessThan(d.bound!);
    expect(compare(null, r, r.spec.gate).rules.find((x) => x.id === 'soak.drift.ttft_p50')!.status).toBe('pass');
  }, 30_000);
});

test('an abort on a server that starts failing every request stops within the window and accounts for every request', async () => {
  const lines: { outcome: string; t_send: number | null; t_end: number }[] = [];
  const resolved = simSpec(
    { mode: 'paced', ttft_ms: 5, itl_ms: 1, fail_from_ms: 2500 },
    'arrival: constant, rate: 40, warmup: 1s, steady: 8s, cooldown: 0s, abort: { max_error_rate: 0.5, window: 2s }',
  );
  const r = await runBenchmark({ resolved, onRecordLine: (l) => lines.push(JSON.parse(l) as (typeof lines)[number]) });
  expect(r.abort?.reason).toBe('error_rate');
  const firstFailure = Math.min(...lines.filter((l) => l.outcome === 'http_5xx').map((l) => l.t_end));
  const lastSend = Math.max(...lines.map((l) => l.t_send ?? -Infinity));
  // Half the window's requests failing is reached about window / 2 after the server broke; it never takes a whole window.
  expect(lastSend - firstFailure).toBeLessThan(2000);
  expect(lastSend - firstFailure).toBeGreaterThan(500);
  expect(r.abort!.at_s).toBeLessThan(9);
  expect(r.requests.not_reached).toBeGreaterThan(0);
  expect(Object.values(r.requests.by_class).reduce((a, b) => a + b, 0) + r.requests.not_reached).toBe(planned(resolved));
  expect(r.requests.scheduled).toBe(lines.length);
  expect(parseResult(JSON.stringify(r), 'r.json').abort).toEqual(r.abort);
  expect(compare(null, r, r.spec.gate).verdict).toBe('inconclusive');
  expect(compare(null, { ...r, abort: { ...r.abort!, fail: true } }, r.spec.gate).verdict).toBe('fail');
}, 30_000);

test('steps read like a coarse sweep: the first step past capacity is the one where achieved falls below offered', async () => {
  // Capacity ≈ 39 req/s (SLOTS above): 10 and 20 are served, 60 is not.
  const resolved = simSpec(
    SLOTS,
    'arrival: constant, rate: 10, warmup: 1s, steady: 6s, cooldown: 0s, pattern: { kind: steps, rates: [10, 20, 60], each: 2s }',
  );
  const r = await runBenchmark({ resolved });
  const st = r.pattern!.steps!;
  expect(r.pattern!.phases.map((p) => p.name)).toEqual(['step 1', 'step 2', 'step 3']);
  expect(st.first_saturated).toBe('step 3');
  expect(st.first_departed).toBe('step 3');
  const [s1, , s3] = r.pattern!.phases;
  expect(s1.achieved_rate_per_s).toBeGreaterThan(8);
  expect(s3.achieved_rate_per_s).toBeLessThan(0.95 * s3.offered_rate_per_s);
}, 30_000);

test('two generator threads split the curve and their pattern sections merge into the whole run', async () => {
  const resolved = simSpec(
    { mode: 'paced', ttft_ms: 200, itl_ms: 1 }, // no slot limit: the spike queues nothing; 200 ms keeps the 10 % band clear of jitter
    'arrival: constant, rate: 30, ramp_up: 1s, warmup: 1s, steady: 4s, cooldown: 0s, pattern: { kind: spike, multiplier: 2, at: 1s, for: 1s }',
  );
  const r = await runBenchmark({ resolved, workers: 2 });
  const p = r.pattern!;
  expect(r.environment.workers).toBe(2);
  expect(p.phases.map((x) => x.offered_rate_per_s)).toEqual([30, 60, 30]);
  // Each thread ran λ(t)/2: together the spike phase holds 60 req/s × 1 s of arrivals.
  expect(Math.abs(p.phases[1].scheduled - 60)).toBeLessThanOrEqual(2);
  expect(p.phases.reduce((a, x) => a + x.scheduled, 0)).toBe(r.requests.window.scheduled);
  expect(p.spike!.recovery_s).not.toBeNull();
  // The result file with its pattern section loads against the result schema, keys intact.
  expect(parseResult(JSON.stringify(r), 'r.json').pattern!.spike!.recovery_s).toBe(p.spike!.recovery_s);
  const broken = JSON.parse(JSON.stringify(r)) as { pattern: { spike: { recovery_s: unknown } } };
  broken.pattern.spike.recovery_s = 'soon';
  expect(() => parseResult(JSON.stringify(broken), 'r.json')).toThrow(/recovery_s/);
  // Every report shows the pattern: the phase table, the recovery, and (HTML) the shaded chart.
  const gate = compare(null, r, r.spec.gate);
  const recovery = `Recovery ${p.spike!.recovery_s} s`;
  expect(renderConsoleReport(r, gate).replace(/ +/g, ' ')).toContain(recovery);
  expect(renderMarkdown(gate, null, r)).toContain(`| spike | ${p.phases[1].from_s} |`);
  expect(renderMarkdown(gate, null, r)).toContain(`- ${recovery}`);
  const html = renderHtml(gate, null, r);
  expect(html).toContain('<h2>Load pattern: spike</h2>');
  expect(html).toMatch(/<rect [^>]*fill-opacity="0.12"\/><text [^>]*>spike<\/text>/);
  expect(html).toContain('TTFT p95 over a sliding');
}, 30_000);

test('over-saturation: a server completing a quarter of what arrives is stopped once in flight has climbed for a window', async () => {
  // 2 slots × (100 ms + 19 × 1 ms): about 17 req/s completed of 60 offered; the rest piles up.
  const resolved = simSpec(
    { slots: 2, ttft_ms: 100, itl_ms: 1 },
    'arrival: constant, rate: 60, warmup: 1s, steady: 8s, cooldown: 0s, abort: { over_saturation: true, window: 2s }',
  );
  const r = await runBenchmark({ resolved });
  expect(r.abort?.reason).toBe('over_saturation');
  expect(r.abort!.detail).toMatch(/in flight climbed \d+ → \d+ over the last 2 s/);
  // One window to see the climb, then a slot of the checker: well before the 9 s the run would last.
  expect(r.abort!.at_s).toBeGreaterThanOrEqual(2);
  expect(r.abort!.at_s).toBeLessThan(4);
  expect(Object.values(r.requests.by_class).reduce((a, b) => a + b, 0) + r.requests.not_reached).toBe(planned(resolved));
  expect(r.requests.by_class.cancelled).toBeGreaterThan(0);
}, 30_000);
