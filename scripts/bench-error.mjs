#!/usr/bin/env node
// Does the generator know its own error? Each result carries `generator.timestamp_error_ms`:
// bounds on how far its timestamps moved a TTFT or E2E quantile (p50/p90/p99) and on how late a
// chunk's timestamp is (`chunk`), computed from the generator's own event loop
// (src/result/timestamp-error.ts). This holds them against the simulator's ground truth: the
// paced simulator in its own process records when it wrote each request's first and last token,
// the client's records say when it stamped them (joined through x-request-id), and
// |client − truth| over those chunks is the actual error.
// Per point, paced 16/64/256-token streams from light load to past the generator's ceiling (and
// engine64, an engine-mode shape with 512-token prompts), it prints:
// - the chunk bound beside the actual error of the chunks, whether it covered it (target: at
//   ≥ 95 % of the p50 and p99 comparisons) and was within 3× of it where the actual error exceeds 0.5 ms — tallied against
//   each sample quantile, and against its 95 % limits (quantileWithLimits);
// - the ITL quantiles the client measured against the true ones over the same gaps (the sim's
//   record_token_times), beside the bound the gate reads for ITL;
// - what a gate compares: each TTFT and E2E quantile's shift (the client's quantile less the true
//   one over the same requests) against the bound the result states at that percentile, and per
//   offered rate how many runs' TTFT p99 met each line of that comparison (ttftP99Lines);
// - each record's own first-token bound (late_first_ms) against its actual lateness.
// --hog spins a process on the generator's core throughout (a runner shared with other work).
// --server plain replaces the simulator with scripts/paced-server.mjs, a plain node:http server
// that records its write times and its own loop delay.
// Prints figures; asserts nothing.
//
//   npm run bench:error
//   node scripts/bench-error.mjs --quick                 # fewer, shorter points
//   node scripts/bench-error.mjs --shapes paced64 --rates 100,800 --dump out/bench-error
//   node scripts/bench-error.mjs --shapes paced64,engine64 --rates 10,20 --hog
//   node scripts/bench-error.mjs --shapes paced64 --rates 100,800 --server plain   # not the simulator
//   node scripts/bench-error.mjs --shapes paced64 --rates 900 --server plain --repeat 6 --against OTHER/dist/cli.js
//   node scripts/bench-error.mjs --shapes paced64 --rates 600 --server plain --workers 2 --hog
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { f, pct } from './figures.mjs';
import { groundTruth, pacedServerTruth, runGenerator } from './generator-process.mjs';
import { canPin, pinnedTo, startPacedServer, startSim } from './sim-process.mjs';

const { values: opt } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    shapes: { type: 'string' },
    rates: { type: 'string' },
    seconds: { type: 'string' },
    // Keep every point's result.json and per-chunk errors here.
    dump: { type: 'string' },
    // A process spinning on the generator's core all along: a runner shared with other work.
    hog: { type: 'boolean', default: false },
    // The server: the simulator (sim), or a plain node:http paced server that shares no code
    // with loadgate (plain: scripts/paced-server.mjs; paced shapes only).
    server: { type: 'string', default: 'sim' },
    // Each point this many times (the p99 of one short window moves a lot from run to run).
    repeat: { type: 'string', default: '1' },
    // Another build's dist/cli.js, run right after this one at every point: a side-by-side comparison.
    against: { type: 'string' },
    // Generator threads (--workers); more than one spread over both cores, the server's too.
    workers: { type: 'string', default: '1' },
    // Seconds of warmup before each window (the spec's own default is 5).
    warmup: { type: 'string', default: '3' },
    // The workload's seed: which prompts, and when each request is due.
    seed: { type: 'string', default: '1' },
  },
});

const PACED = { mode: 'paced', ttft_ms: 50, itl_ms: 10 };
/**
 * Rates per shape, from light load to past the ceiling (paced64 saturates one core near 800
 * req/s here). The paced shapes' true inter-token gap is one value (10 ms, as the sim's timer
 * keeps it); engine64's is spread (512-token prefills stretch every running stream's gap), the
 * shape of a real engine's ITL, with a tail the quick start's ITL p99 rule reads.
 */
const POINTS = {
  paced16: { tokens: 16, rates: opt.quick ? [100, 800, 2000] : [50, 200, 800, 1600], sim: PACED },
  paced64: { tokens: 64, rates: opt.quick ? [50, 400, 1000] : [50, 100, 200, 400, 600, 800, 1000], sim: PACED },
  paced256: { tokens: 256, rates: opt.quick ? [25, 200] : [25, 50, 100, 200, 300], sim: PACED },
  engine64: {
    tokens: 64,
    inputTokens: 512,
    rates: opt.quick ? [10] : [10, 20],
    sim: { mode: 'engine', decode_base_ms: 6, decode_ms_per_seq: 0.06, prefill_ms_per_token: 0.05, enable_prefix_caching: false },
  },
};
const STEADY_S = Number(opt.seconds ?? (opt.quick ? 4 : 6));
const REPEAT = Math.max(1, Number(opt.repeat));
const BUILDS = [{ label: '', cli: undefined }, ...(opt.against ? [{ label: ' (against)', cli: opt.against }] : [])];
const WARMUP_S = Number(opt.warmup);
const plain = opt.server === 'plain';
const shapes = (opt.shapes ? opt.shapes.split(',') : Object.keys(POINTS)).filter((s) => !plain || POINTS[s].sim === PACED);
const dir = mkdtempSync(join(tmpdir(), 'loadgate-bench-error-'));
if (opt.dump) mkdirSync(opt.dump, { recursive: true });

const share = (a, b) => (b > 0 ? `${a}/${b} (${f((100 * a) / b, 0)} %)` : 'none');

/** [client record, server's record] of each of the window's successful requests whose first token the server recorded. */
function* joined(records, truth) {
  for (const r of records) {
    const t = truth.get(r.request_id);
    if (r.in_window && r.outcome === 'ok' && t && t.first_token !== null) yield [r, t];
  }
}

/**
 * [client TTFT, true TTFT, truth first-token write time, the record's own first-token bound
 * (late_first_ms), true TTFT from the write's start (null from the simulator)] of the window's
 * successful requests, for --dump.
 */
function ttftPairs(records, truth) {
  return [...joined(records, truth)].map(([r, t]) => [
    r.t_first - r.t_sched,
    t.first_token - r.t_sched,
    t.first_token,
    r.late_first_ms,
    t.first_token_from == null ? null : t.first_token_from - r.t_sched,
  ]);
}

/** [truth write time, client − truth] of every first and last token of the window's successful requests, in write order. */
function timeline(records, truth) {
  const out = [];
  for (const [r, t] of joined(records, truth)) {
    out.push([t.first_token, r.t_first - t.first_token], [t.last_token, r.t_last - t.last_token]);
  }
  return out.sort((x, y) => x[0] - y[0]);
}

/** Every true inter-token gap of the window's successful requests (the sim's token write times), ascending. */
function truthGaps(records, truth) {
  const gaps = [];
  for (const [, { token_times: times }] of joined(records, truth)) {
    if (!times) continue;
    for (let i = 1; i < times.length; i++) gaps.push(times[i] - times[i - 1]);
  }
  return gaps.sort((x, y) => x - y);
}

/**
 * ITL quantiles measured against true ones over the same gaps. A gap's two stamps are each late
 * by the delivery floor H and up to the bound, so the gate reads the ITL bound as e − H
 * (src/gate/timing-validity.ts errorBound); the actual error of a quantile is the measured
 * quantile less the true one. Both sides are the same gaps, so no sampling noise enters: what
 * differs is the timestamps alone.
 */
const itlRows = [];
const itlChecks = { covered: 0, compared: 0, ratios: [] };
function itlRow(label, result, gaps) {
  const te = result.generator.timestamp_error_ms;
  const m = result.metrics.itl_ms;
  if (!te || !m || gaps.length === 0) return;
  const h = te.delivery_ms ?? 0;
  const chunk = te.chunk ?? te; // results made before the chunk figure had its own field: one figure, the larger
  const cells = [50, 99].map((p) => {
    const bound = Math.max(0, chunk[`p${p}`] - h);
    const truthQ = pct(gaps, p);
    const err = m[`p${p}`] - truthQ;
    const covered = bound >= Math.abs(err) - 0.01; // the histogram's 3 significant digits at ~10 ms
    itlChecks.compared++;
    if (covered) itlChecks.covered++;
    if (Math.abs(err) > 0.05) itlChecks.ratios.push(bound / Math.abs(err));
    return `${f(m[`p${p}`], 2)} − ${f(truthQ, 2)} = ${err >= 0 ? '+' : ''}${f(err, 2)} ms; bound ${f(bound, 2)} ms ${covered ? 'covered' : '**missed**'}`;
  });
  itlRows.push(`| ${label} | ${cells.join(' | ')} |`);
}

/**
 * The quantile shift, which is what a gate compares: the client's TTFT (E2E) quantile less the
 * true one, each over the same window requests (true = the sim's write time of the first (last)
 * token less the intended send time), against the figure the result claims at that percentile.
 * Covered when the bound is at least the shift (to a bucket of the histograms: 4 significant
 * digits in results with E2E figures of their own, 3 before); within 3× where the shift exceeds
 * 0.5 ms. TTFT's against the TTFT figures, E2E's against `e2e` (older results: one figure for both).
 * The plain server also keeps the time just before each write (`…_from`): the bytes reach the
 * client's socket inside the write call, so the true shift lies between the one against the
 * write's end and the one against its start, shown beside it. Below a tenth of a millisecond that
 * span is most of the shift, and both readings of "within 3×" are tallied at any size.
 */
const shiftRows = [];
/** Each run's TTFT p99 figures by offered rate and build, for the tally of the lines below (ttftP99Lines). */
const ttftP99 = new Map();
const shiftChecks = { covered: 0, compared: 0, tight: 0, tightCompared: 0, coveredFrom: 0, tightAny: 0, tightAnyFrom: 0, fromCompared: 0 };
function shiftRow(label, { rate, build }, result, records, truth) {
  const te = result.generator.timestamp_error_ms;
  if (!te) return;
  const sides = { ttft: [[], [], []], e2e: [[], [], []] };
  let spanned = true;
  for (const [r, t] of joined(records, truth)) {
    sides.ttft[0].push(r.t_first - r.t_sched);
    sides.ttft[1].push(t.first_token - r.t_sched);
    sides.e2e[0].push(r.t_last - r.t_sched);
    sides.e2e[1].push(t.last_token - r.t_sched);
    if (t.first_token_from == null || t.last_token_from == null) spanned = false;
    else {
      sides.ttft[2].push(t.first_token_from - r.t_sched);
      sides.e2e[2].push(t.last_token_from - r.t_sched);
    }
  }
  const cells = [];
  const grain = te.e2e ? 16384 : 2000;
  for (const [side, [client, trueV, trueFrom]] of Object.entries(sides)) {
    for (const v of [client, trueV, trueFrom]) v.sort((x, y) => x - y);
    for (const p of [50, 99]) {
      const shift = pct(client, p) - pct(trueV, p);
      const bound = (side === 'e2e' && te.e2e ? te.e2e : te)[`p${p}`];
      const slack = 0.01 + pct(client, p) / grain;
      const covered = bound >= shift - slack;
      shiftChecks.compared++;
      if (covered) shiftChecks.covered++;
      let mark = covered ? 'covered' : '**missed**';
      if (shift > 0.5) {
        shiftChecks.tightCompared++;
        if (bound <= 3 * shift) shiftChecks.tight++;
        mark += `, ${f(bound / shift, 1)}×`;
      }
      // Without the write's start (the simulator keeps none) the shift against its end stands for both.
      const shiftFrom = spanned ? pct(client, p) - pct(trueFrom, p) : shift;
      let from = '';
      if (spanned) {
        shiftChecks.fromCompared++;
        if (bound >= shiftFrom - slack) shiftChecks.coveredFrom++;
        if (bound <= 3 * shift) shiftChecks.tightAny++;
        if (bound <= 3 * shiftFrom) shiftChecks.tightAnyFrom++;
        from = ` (${f(shiftFrom, 2)} from the write's start)`;
      }
      cells.push(`${f(shift, 2)} ms${from}; bound ${f(bound, 2)} ms ${mark}`);
      if (side === 'ttft' && p === 99) {
        const w = result.requests.window;
        const row = {
          shift,
          shiftFrom,
          bound,
          slack,
          loopP99: truth.loopDelayMs?.p99,
          answered: w.scheduled > 0 ? w.by_class.ok / w.scheduled : NaN,
          // Against the rate the schedule offered (its Poisson draw), not the nominal one.
          achieved: result.load.achieved_rate_per_s / result.load.offered_rate_per_s,
        };
        const key = `${rate} req/s${build}`;
        if (!ttftP99.has(key)) ttftP99.set(key, { rate, rows: [] });
        ttftP99.get(key).rows.push(row);
      }
    }
  }
  const loop = truth.loopDelayMs ? ` | ${f(truth.loopDelayMs.p99)} ms` : '';
  shiftRows.push(`| ${label} | ${cells.join(' | ')}${loop} |`);
}

/**
 * Each record's own bound (late_first_ms, the time since its read's loop last looked at its
 * sockets, plus the delivery floor) against its first token's actual lateness: the share it
 * covered, and by how much the others missed. A wake-up the OS delays counts as idle to the loop,
 * so a busy core shows misses here that the result's figures cover from the lateness of timers.
 */
const ownRows = [];
function ownRow(label, result, records, truth) {
  const h = result.generator.timestamp_error_ms?.delivery_ms ?? 0;
  const misses = [];
  let n = 0;
  for (const [r, t] of joined(records, truth)) {
    if (r.late_first_ms === undefined) continue;
    n++;
    const over = r.t_first - t.first_token - (r.late_first_ms + h);
    if (over > 0.001) misses.push(over);
  }
  misses.sort((x, y) => x - y);
  ownRows.push(`| ${label} | ${share(n - misses.length, n)} | ${misses.length ? `${f(pct(misses, 50))} / ${f(misses.at(-1))} ms` : '–'} |`);
}

/** |client − truth| of those chunks, ascending. */
const actualErrors = (points) => points.map(([, e]) => Math.abs(e)).sort((x, y) => x - y);

console.log(
  `loadgate bench:error — against ${plain ? 'a plain paced server (scripts/paced-server.mjs)' : 'the simulator'}; ${canPin ? `sim pinned to cpu 1, generator to cpu ${Number(opt.workers) > 1 ? '0 and 1' : '0'}` : 'taskset not found: processes not pinned'}; steady ${STEADY_S} s per point; ${new Date().toISOString()}`,
);
console.log('| point | thread busy | chunk bound p50 / p90 / p99 | actual p50 / p90 / p99 / p99.9 | p50 | p99 |');
console.log('|---|---|---|---|---|---|');
const checks = { covered: 0, coveredCI: 0, compared: 0, tight: 0, tightCI: 0, tightCompared: 0 };
const Z = 1.6448536269514722; // Φ⁻¹(0.95)

/**
 * The actual error at percentile p of the n chunks (ascending), with a one-sided 95 % limit on
 * each side for the population's p-quantile that the bound is a claim about. The number of
 * chunks below that quantile is Binomial(n, p); its normal approximation gives the ranks
 * n·p ∓ z·√(n·p·(1 − p)), distribution-free (the order statistics' usual interval). At light
 * load the p99 of a 6 s window rests on a handful of chunks: its 560 chunks put the population's
 * p99 between the 10th largest and the largest, which one OS stall more or less can move tenfold.
 */
function quantileWithLimits(sorted, p) {
  const n = sorted.length;
  const q = p / 100;
  const spread = Z * Math.sqrt(n * q * (1 - q));
  const at = (k) => sorted[Math.max(0, Math.min(n - 1, k))];
  return { value: pct(sorted, p), lower: at(Math.floor(n * q - spread)), upper: at(Math.ceil(n * q + spread)) };
}

/**
 * One comparison. Covered when bound ≥ actual (to the 1 µs the figures carry); tight when ≤ 3×
 * where actual > 0.5 ms. Each is tallied twice: against the sample's own quantile, and against
 * its 95 % limits — a miss then means the sample shows, at 95 %, that the population's error is
 * above the bound (or more than 3× below it), rather than that a window drew a stall more.
 */
function judge(bound, actual) {
  const covered = bound >= actual.value - 0.001;
  const coveredCI = bound >= actual.lower - 0.001;
  checks.compared++;
  if (covered) checks.covered++;
  if (coveredCI) checks.coveredCI++;
  let mark = covered ? 'covered' : coveredCI ? `under the sample, over its 95 % lower limit ${f(actual.lower)}` : '**missed**';
  if (actual.value > 0.5) {
    const tight = bound <= 3 * actual.value;
    checks.tightCompared++;
    if (tight) checks.tight++;
    if (bound <= 3 * actual.upper) checks.tightCI++;
    mark += `, ${f(bound / actual.value, 1)}×${tight ? '' : bound <= 3 * actual.upper ? ` (3× its upper limit ${f(actual.upper)})` : ' **loose**'}`;
  }
  return mark;
}

/**
 * The TTFT p99 lines, per offered rate (and build), run by run: the figure covers the shift (to
 * the bucket slack above), and in the looser reading that takes the server's own loop-delay p99
 * off the shift, with 1 ms to spare; the figure within 3× of the shift, against the write's end
 * and against its start (the truth lies between, so below a tenth of a millisecond the two
 * readings differ by most of the shift); the shift within 2 ms, as it is and less the server's
 * loop-delay p99; every window request answered and the achieved rate, each ≥ 99 %.
 */
function ttftP99Lines() {
  if (ttftP99.size === 0) return;
  const count = (rows, ok) => `${rows.filter(ok).length}/${rows.length}`;
  const loop = (r) => r.loopP99 ?? 0;
  console.log('TTFT p99, run by run, per offered rate (and build):');
  console.log(
    "| rate | shifts | bound ≥ shift | bound ≥ shift − server loop p99 − 1 ms | bound ≤ 3× shift (from the write's start) | shift ≤ 2 ms (less server loop p99) | answered and achieved ≥ 99 % |",
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const [key, { rows }] of [...ttftP99].sort((a, b) => a[1].rate - b[1].rate)) {
    const shifts = rows.map((r) => r.shift).sort((a, b) => a - b);
    console.log(
      `| ${key} | ${f(shifts[0], 2)}–${f(shifts.at(-1), 2)} ms | ${count(rows, (r) => r.bound >= r.shift - r.slack)} | ${count(rows, (r) => r.bound >= r.shift - loop(r) - 1)} | ${count(rows, (r) => r.bound <= 3 * r.shift)} (${count(rows, (r) => r.bound <= 3 * r.shiftFrom)}) | ${count(rows, (r) => r.shift <= 2)} (${count(rows, (r) => r.shift - loop(r) <= 2)}) | ${count(rows, (r) => r.answered >= 0.99 && r.achieved >= 0.99)} |`,
    );
  }
}

// A bounded spinner on the generator's core (it shares the core with the generator; the sim keeps its own).
const hog = opt.hog
  ? spawn(...pinnedTo('0', [process.execPath, '-e', `const end = Date.now() + ${60 * 60_000}; while (Date.now() < end) {}`]), {
      stdio: 'ignore',
    })
  : null;
process.once('exit', () => hog?.kill('SIGKILL'));
for (const name of shapes) {
  const shape = POINTS[name];
  const sim = plain
    ? await startPacedServer({ ttftMs: PACED.ttft_ms, itlMs: PACED.itl_ms }, { cpus: 1 })
    : await startSim({ model: 'bench', ground_truth_size: 400000, record_token_times: true, ...shape.sim }, { cpus: 1 });
  const truthOf = plain ? pacedServerTruth : groundTruth;
  try {
    for (const rate of opt.rates ? opt.rates.split(',').map(Number) : shape.rates)
      for (let k = 1; k <= REPEAT; k++)
        for (const build of BUILDS) {
          await truthOf(sim.origin);
          const run = await runGenerator(sim.origin, {
            dir,
            tokens: shape.tokens,
            inputTokens: shape.inputTokens,
            rate,
            warmupS: WARMUP_S,
            steadyS: STEADY_S,
            workers: Number(opt.workers),
            seed: Number(opt.seed),
            cli: build.cli,
          });
          const truth = await truthOf(sim.origin);
          const label = `${name}, ${rate} req/s${REPEAT > 1 ? ` #${k}` : ''}${build.label}`;
          itlRow(label, run.result, truthGaps(run.records, truth));
          shiftRow(label, { rate, build: build.label }, run.result, run.records, truth);
          ownRow(label, run.result, run.records, truth);
          const points = timeline(run.records, truth);
          const errors = actualErrors(points);
          const te = run.result.generator.timestamp_error_ms;
          const b = te?.chunk ? { ...te.chunk, max: te.max } : te; // the chunk figure, against the chunks' own errors
          const actual = { p50: quantileWithLimits(errors, 50), p90: quantileWithLimits(errors, 90), p99: quantileWithLimits(errors, 99) };
          const busy = run.result.generator.window_cpu?.busy;
          console.log(
            `| ${label} | ${f((busy ?? NaN) * 100, 0)} % | ${f(b?.p50, 3)} / ${f(b?.p90, 3)} / ${f(b?.p99, 2)} ms | ${f(actual.p50.value, 3)} / ${f(actual.p90.value, 3)} / ${f(actual.p99.value, 2)} / ${f(pct(errors, 99.9), 2)} ms | ${judge(b?.p50 ?? NaN, actual.p50)} | ${judge(b?.p99 ?? NaN, actual.p99)} |`,
          );
          if (opt.dump)
            writeFileSync(
              join(opt.dump, `${name}-${rate}${REPEAT > 1 ? `-${k}` : ''}${build.cli ? '-against' : ''}.json`),
              JSON.stringify({
                result: run.result,
                errors,
                timeline: points,
                ttft: ttftPairs(run.records, truth),
                // For a kernel trace of the run (scripts/wake-latency.mjs): the processes, and the
                // clock's offset (its times less it are CLOCK_MONOTONIC ms, as perf record -k CLOCK_MONOTONIC).
                generator_pid: run.pid,
                server_pid: sim.pid,
                clock_offset_ms: Number(process.env.LOADGATE_CLOCK_OFFSET),
              }),
            );
        }
  } finally {
    sim.stop();
  }
}
console.log(
  `covered: ${share(checks.covered, checks.compared)} of the p50 and p99 comparisons (target ≥ 95 %) · within 3× where the actual error exceeds 0.5 ms: ${share(checks.tight, checks.tightCompared)}`,
);
console.log(
  `against the actual's 95 % limits (a miss the sample shows at 95 %): covered ${share(checks.coveredCI, checks.compared)} · within 3× ${share(checks.tightCI, checks.tightCompared)}`,
);
console.log('');
console.log('ITL quantiles, measured − true over the same gaps, against the bound the gate reads for ITL (e − H):');
console.log('| point | p50 | p99 |');
console.log('|---|---|---|');
for (const row of itlRows) console.log(row);
const ratios = [...itlChecks.ratios].sort((a, b) => a - b);
console.log(
  `ITL covered: ${share(itlChecks.covered, itlChecks.compared)} · bound ÷ |error| where the error exceeds 0.05 ms: median ${f(pct(ratios, 50), 1)}×, largest ${f(ratios.at(-1), 1)}×`,
);
console.log('');
console.log('Quantile shift (client − true, same requests) against the bound the result states at that percentile:');
console.log(`| point | TTFT p50 | TTFT p99 | E2E p50 | E2E p99 |${plain ? ' server loop delay p99 |' : ''}`);
console.log(`|---|---|---|---|---|${plain ? '---|' : ''}`);
for (const row of shiftRows) console.log(row);
console.log(
  `shift covered: ${share(shiftChecks.covered, shiftChecks.compared)} · within 3× where the shift exceeds 0.5 ms: ${share(shiftChecks.tight, shiftChecks.tightCompared)}`,
);
if (shiftChecks.fromCompared > 0)
  console.log(
    `against the write's start: covered ${share(shiftChecks.coveredFrom, shiftChecks.fromCompared)} · within 3× at any size: ${share(shiftChecks.tightAny, shiftChecks.fromCompared)} of the shifts against the write's end, ${share(shiftChecks.tightAnyFrom, shiftChecks.fromCompared)} against its start`,
  );
console.log('');
ttftP99Lines();
console.log('');
console.log("Each record's own first-token bound (late_first_ms + delivery) against its actual lateness:");
console.log('| point | covered | misses p50 / max |');
console.log('|---|---|---|');
for (const row of ownRows) console.log(row);
hog?.kill('SIGKILL');
