import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { runDelayMs } from '../../src/client/run-delay.js';
import { compare } from '../../src/gate/compare.js';
import { decodeHistogram } from '../../src/metrics/histogram.js';
import { runBenchmark } from '../../src/run/run.js';
import { resolveGate } from '../../src/spec/gate-schema.js';
import type { Result } from '../../src/result/types.js';
import { createRng } from '../../src/rng.js';
import { now } from '../../src/time.js';
import { startSimProcess, type SimProcess } from '../fixtures/sim-process.js';
import { specFor } from './helpers.js';

/**
 * The generator's own error bound (generator.timestamp_error_ms) against the truth: the
 * simulator runs in a child process, so nothing done to this process (the generator's) delays
 * its writes, and it records when it wrote each request's first and last token.
 */
let sim: SimProcess;
beforeAll(async () => {
  sim = await startSimProcess({ model: 'test-model', mode: 'paced', ttft_ms: 20, itl_ms: 5 });
});
afterAll(() => sim?.stop());

interface FirstToken {
  /** The client's TTFT, the true one (the sim's write time less the intended send time), and the record's own bound. */
  client: number;
  truth: number;
  late: number;
}

/**
 * One short open-loop run; the actual |client − truth| of every window request's first and last
 * token, ascending, and each window request's first token as the client and the sim saw it.
 */
async function measured(): Promise<{ result: Result; errors: number[]; first: FirstToken[] }> {
  const lines: string[] = [];
  const result = await runBenchmark({
    resolved: specFor(`${sim.origin}/v1`, 'rate: 50\nwarmup: 500ms\nsteady: 3s\ncooldown: 0s', '', { requestTimeout: '5s' }),
    onRecordLine: (l) => lines.push(l),
  });
  const truth = await sim.truth();
  const errors: number[] = [];
  const first: FirstToken[] = [];
  for (const r of lines.map((l) => JSON.parse(l))) {
    const t = truth.get(r.request_id);
    if (!r.in_window || r.outcome !== 'ok' || !t || t.first_token === null) continue;
    errors.push(Math.abs(r.t_first - t.first_token), Math.abs(r.t_last - t.last_token!));
    first.push({ client: r.t_first - r.t_sched, truth: t.first_token - r.t_sched, late: r.late_first_ms });
  }
  return { result, errors: errors.sort((a, b) => a - b), first };
}

const ascending = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** A quiet run's bounds are small: within 3× of its own actual error, or of 2 ms where that is less. */
const smallBound = (run: { result: Result; errors: number[] }) => {
  const e = run.result.generator.timestamp_error_ms!;
  return Math.max(e.p99, e.chunk?.p99 ?? 0) <= 3 * Math.max(2, pct(run.errors, 99));
};

/** The p-th percentile of ascending values, ranked as HdrHistogram ranks them. */
const pct = (xs: number[], p: number) => xs[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)];

/**
 * The one-sided 95 % lower limit of the population's p-quantile from ascending samples: the
 * number of samples below it is Binomial(n, p), so rank n·p − 1.645·√(n·p·(1 − p)) (the order
 * statistics' distribution-free interval, as bench:error's quantileWithLimits). The bound is a
 * claim about the population; a short hogged window's p90 moves by a third from run to run (its
 * 300 errors spread over a 20 ms stall), so a sample quantile above the bound by a few per cent
 * is a window that drew a stall more, and one above this limit is a bound that fell short.
 */
const lowerLimit = (xs: number[], p: number) => {
  const q = p / 100;
  return xs[Math.max(0, Math.floor(xs.length * q - 1.645 * Math.sqrt(xs.length * q * (1 - q))) - 1)];
};

/** What a gate compares: the client's TTFT quantile less the true one over the same requests. */
const ttftShift = (first: FirstToken[], p: number) =>
  pct(ascending(first.map((f) => f.client)), p) - pct(ascending(first.map((f) => f.truth)), p);

test('a run whose event loop is hogged (20 ms stalls, a fifth of the time) reports a bound that covers the delay; a quiet run a small one', async () => {
  let quiet = await measured();
  // A virtual machine that stops this one for ~10 ms inside the 3 s window leaves a gap in which
  // the loop looked at no socket: the chunk bound rightly grows by it, while the chunks may all
  // have been read on time. That run was not quiet; it earns another, up to two more (a shared
  // runner has been seen to stop it in two runs in a row), and the last must be quiet.
  for (let more = 2; more > 0 && !smallBound(quiet); more--) quiet = await measured();
  // The hog: this process's event loop is blocked 20 ms at a time, with seeded gaps of 40–120 ms
  // between stalls (mean 80: a fifth of the time blocked), so about a fifth of the chunks are
  // read up to 20 ms late. The gaps vary because a strictly periodic hog phase-locks with the
  // paced streams (a token every 5 ms from a first token sent just after a stall), putting the
  // same tokens of every stream in a stall: lateness no longer falls at random moments, which
  // is what the bound assumes of a server's bytes, and the test then measures that coincidence.
  const rng = createRng(12);
  let hog: NodeJS.Timeout | undefined;
  const stall = () => {
    const until = now() + 20;
    while (now() < until);
    hog = setTimeout(stall, 40 + 80 * rng.next());
  };
  hog = setTimeout(stall, 40 + 80 * rng.next());
  let hogged: Awaited<ReturnType<typeof measured>>;
  try {
    hogged = await measured();
  } finally {
    clearTimeout(hog);
  }

  for (const run of [quiet, hogged]) {
    expect(run.result.requests.window.by_class.ok).toBe(run.result.requests.window.scheduled);
    expect(run.errors.length).toBe(2 * run.result.requests.window.scheduled);
  }
  const q = quiet.result.generator.timestamp_error_ms!;
  const h = hogged.result.generator.timestamp_error_ms!;
  // The premise: the hog really made the timestamps late, by most of a stall at the p99.
  expect(pct(hogged.errors, 99)).toBeGreaterThan(10);
  // The chunk bound covers what the hog did, at the p90 and the p99 (and not by calling everything late).
  expect(h.chunk!.p99).toBeGreaterThanOrEqual(lowerLimit(hogged.errors, 99));
  expect(h.chunk!.p90).toBeGreaterThanOrEqual(lowerLimit(hogged.errors, 90));
  expect(h.chunk!.p99).toBeLessThan(3 * Math.max(20, pct(hogged.errors, 99)));
  expect(h.max).toBeGreaterThanOrEqual(hogged.errors[hogged.errors.length - 1]);
  // What a gate compares is a quantile's shift: the client's TTFT quantile less the true one over
  // the same requests. The stalls make the tail requests the late ones; the quantile figures
  // cover the shift at every percentile they state. And each record's own bound (the time since
  // its read's loop last looked at its sockets) covers its first token's lateness, bar the
  // delivery floor's own spread (a median; some deliveries exceed it by tens of µs).
  for (const p of [50, 90, 99] as const) expect(h[`p${p}`]).toBeGreaterThanOrEqual(ttftShift(hogged.first, p) - 0.01);
  const delivery = h.delivery_ms ?? 0;
  const ownCovered = hogged.first.filter((f) => f.late + delivery >= f.client - f.truth - 0.01).length;
  expect(ownCovered / hogged.first.length).toBeGreaterThan(0.9);
  expect(pct(ascending(hogged.first.map((f) => f.late)), 99)).toBeGreaterThan(10);
  // The quiet run's bound is small: within 3× of its own actual error, or of 2 ms where that is
  // less — held against what happened, not a constant or the hogged run, since a busy machine
  // can make a run without the hog late by more than the hog. And it still covers its median.
  // On failure it shows both figures and which quantile shift set the first.
  const parts = (r: Result) => {
    const h = (k: string) => decodeHistogram(r.histograms[k]);
    const shift = (c: string) => (h(c).getValueAtPercentile(99) - h(`${c}Earliest`).getValueAtPercentile(99)) / 1000;
    const e = r.generator.timestamp_error_ms!;
    return `p99 ${e.p99}: ttft shift ${shift('ttft')}, e2e shift ${shift('e2e')}; chunk ${e.chunk?.p99}; actual p99 ${pct(quiet.errors, 99)}`;
  };
  expect([smallBound(quiet), parts(quiet.result)]).toEqual([true, parts(quiet.result)]);
  // The simulator is on loopback: the floor is half the probe's 10th-percentile round trip, and
  // with it the chunk bound covers the median error whole (the server's write to this loop's read).
  expect(q.delivery_ms).toBeCloseTo(quiet.result.network!.rtt_ms!.p10! / 2, 2);
  expect(q.chunk!.p50).toBeGreaterThanOrEqual(pct(quiet.errors, 50));
  // And its quantile figures cover the quiet run's own TTFT shifts, bar the delivery floor's
  // spread (a median: some deliveries exceed it by tens of µs).
  for (const p of [50, 90, 99] as const) expect(q[`p${p}`]).toBeGreaterThanOrEqual(ttftShift(quiet.first, p) - 0.05);
  expect(q.method).toMatch(/union bound/);
  expect(q.observed_s).toBeGreaterThan(3);

  // What the gate makes of it: against the quiet run, a tight TTFT p99 rule (1 ms
  // allowed) cannot be judged at the hogged run's precision, while a loose TTFT p50 rule (200 ms)
  // stays judged; the quiet run against itself keeps every default rule judged.
  // min_tail_samples 1: 150 requests are too few for the default sample rule at p99, and the
  // point here is timing, not sample size.
  const gate = resolveGate({
    min_tail_samples: 1,
    latency: { ttft_p99: { max_increase_pct: 1, max_increase_ms: 1 }, ttft_p50: { max_increase_pct: 50, max_increase_ms: 200 } },
  });
  const report = compare(quiet.result, hogged.result, gate);
  const tight = report.rules.find((r) => r.id === 'latency.ttft_p99')!;
  const loose = report.rules.find((r) => r.id === 'latency.ttft_p50')!;
  expect(tight.timing).toMatchObject({ judgeable: false });
  expect(tight.status).toBe('inconclusive');
  expect(tight.reason).toMatch(/^not judgeable at this timing precision: the generator's timestamp error bound at p99 is [\d.]+ ms/);
  expect(loose.timing).toMatchObject({ judgeable: true });
  expect(loose.status).not.toBe('inconclusive');
  const calm = compare(quiet.result, quiet.result, resolveGate({ min_tail_samples: 1 }));
  const latency = calm.rules.filter((r) => r.id.startsWith('latency.'));
  expect(latency.length).toBeGreaterThanOrEqual(5);
  // Judged: within a quarter of the allowed change, or (ITL p99 here: its 5 ms floor leaves
  // 1.25 ms, about this VM's quiet p99 bound) an outcome that holds with the whole bound against it.
  expect(latency.filter((r) => r.status === 'inconclusive').map((r) => r.reason)).toEqual([]);
  expect(latency.filter((r) => r.timing?.judgeable === true).length).toBeGreaterThanOrEqual(4);
});

/** This process's CPU affinity list ("0-1"), or null where taskset cannot tell. */
function affinity(pid: number): string | null {
  const r = spawnSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' });
  return r.status === 0 ? (/:\s*(\S+)\s*$/.exec(r.stdout)?.[1] ?? null) : null;
}
const pin = (pid: number, cpus: string) => spawnSync('taskset', ['-a', '-c', '-p', cpus, String(pid)]).status === 0;
const sharable = availableParallelism() >= 2 && affinity(process.pid) !== null && runDelayMs() > 0;

(sharable ? test : test.skip)(
  "on a core shared with a spinning process, each record's own bound covers its first token's lateness, the wait for the core included",
  async () => {
    // The generator (this process) and a spinner on cpu 0, the simulator alone on cpu 1: each
    // byte that wakes the generator's loop may find the core taken, and libuv books the wait for
    // it as idle. The thread's run-queue wait is what the record's bound adds for it.
    const own = affinity(process.pid)!;
    const spinner = spawn('taskset', ['-c', '0', process.execPath, '-e', 'const end = Date.now() + 60_000; while (Date.now() < end);'], {
      stdio: 'ignore',
    });
    let run: Awaited<ReturnType<typeof measured>>;
    let waited: number;
    try {
      expect([pin(process.pid, '0'), pin(sim.pid, '1')]).toEqual([true, true]);
      const before = runDelayMs();
      run = await measured();
      waited = runDelayMs() - before;
    } finally {
      spinner.kill('SIGKILL');
      pin(process.pid, own);
      pin(sim.pid, own);
    }
    // The premise: the generator's thread did wait for its core, for much of the run.
    expect(waited).toBeGreaterThan(100);
    expect(run.result.requests.window.by_class.ok).toBe(run.result.requests.window.scheduled);
    // A miss beyond 0.1 ms is one the bound should have seen; within it lies the delivery floor,
    // a median, which some deliveries exceed by tens of µs. Without the run-queue wait, an eighth
    // of the records missed, by 1–2 ms at the median.
    const delivery = run.result.generator.timestamp_error_ms?.delivery_ms ?? 0;
    const misses = run.first.map((f) => f.client - f.truth - (f.late + delivery)).filter((over) => over > 0.1);
    expect([misses.length / run.first.length <= 0.02, misses]).toEqual([true, misses]);
    // So the result's quantile figures, taken from those bounds, cover the TTFT shifts too, to the
    // same 0.1 ms: of 150 window requests the p99 is the second slowest, and the records the
    // delivery floor falls short for by up to that much can be the ones at a quantile.
    const te = run.result.generator.timestamp_error_ms!;
    for (const p of [50, 90, 99] as const) expect(te[`p${p}`]).toBeGreaterThanOrEqual(ttftShift(run.first, p) - 0.1);
  },
  60_000,
);
