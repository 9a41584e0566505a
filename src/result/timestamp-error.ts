import { Described, Type, type Static } from '../json-schema.js';
import { bucketsOf, percentileOf, type Buckets } from '../metrics/buckets.js';
import { PERCENTILES } from '../metrics/histogram.js';
import { maxOf, round3 } from '../numbers.js';
import type { Histogram } from '../metrics/histogram.js';
import type { LoopTurnMeter } from '../metrics/loop-turns.js';
import type { Result } from './types.js';

const ChunkBoundSchema = Type.Object({
  p50: Described("How late a chunk's timestamp is at the median (ms).", Type.Number()),
  p90: Described('As p50, at the 90th percentile (ms).', Type.Number()),
  p99: Described('As p50, at the 99th percentile (ms).', Type.Number()),
});

const E2eShiftSchema = Type.Object({
  p50: Described('How far the timestamps can have moved the E2E median (ms).', Type.Number()),
  p90: Described('As p50, at the 90th and the 95th percentile, the larger (ms).', Type.Number()),
  p99: Described('As p50, at the 99th percentile (ms).', Type.Number()),
  p999: Described('As p50, at the 99.9th percentile (ms).', Type.Number()),
});

/**
 * `generator.timestamp_error_ms`: how far the timestamps can have moved a latency quantile, and
 * how late one chunk's timestamp can be, from what the generator saw of its own event loop.
 */
export const TimestampErrorSchema = Type.Object({
  p50: Described(
    "How far the timestamps can have moved the TTFT median (ms); `e2e` holds the E2E figures. In results without `e2e`, the larger of TTFT's and E2E's; in results without `chunk`, also of the chunk figure.",
    Type.Number(),
  ),
  p90: Described('As p50, at the 90th and the 95th percentile, the larger (ms).', Type.Number()),
  p99: Described('As p50, at the 99th percentile (ms). In results without `p999`, the larger of that and the 99.9th.', Type.Number()),
  p999: Described('As p50, at the 99.9th percentile (ms). Absent in older results, whose p99 holds it.', Type.Optional(Type.Number())),
  e2e: Described(
    'As p50/p90/p99/p999, for the E2E quantiles (ms). Absent in older results, whose TTFT figures hold it.',
    Type.Optional(E2eShiftSchema),
  ),
  chunk: Described(
    "How late one chunk's timestamp can be (ms): what bounds the gaps between chunks (ITL, TPOT). Absent in older results, whose p50/p90/p99 hold it.",
    Type.Optional(ChunkBoundSchema),
  ),
  max: Described(
    'The longest hold-up seen (a read turn or a lateness) plus the longest read turn: no read waited longer than R and Q at their worst; at least p99.',
    Type.Number(),
  ),
  delivery_ms: Described(
    "The delivery floor included in every figure above (ms): on a loopback target, half the network probe's 10th-percentile round trip (in older results, its median; see timestampError); 0 elsewhere. Absent in older results.",
    Type.Optional(Type.Number()),
  ),
  method: Described('How the figures were derived, in one line.', Type.String()),
  observed_s: Described('Event-loop time observed (s), summed over threads and replicates: the denominator merging needs.', Type.Number()),
});
export type TimestampError = Static<typeof TimestampErrorSchema>;

/** The histograms the bound is computed from, under these names in `result.histograms`; merged like any other. */
export const TIMESTAMP_ERROR_HISTOGRAMS = { turns: 'loopTurns', readTurns: 'loopReadTurns', late: 'loopLateness' } as const;

const METHOD =
  "p50/p90/p99/p999 (TTFT) and e2e: the largest quantile shift at the gate's percentiles 50; 90 and 95; 99; 99.9, the quantiles less the same quantiles of each request less its own read bound (time since the loop last looked at its sockets, less the thread's run-queue wait), + delivery floor (half the probe round trip p10 on loopback). chunk: union bound on residual + position, residual = max(read-turn residual, lateness of arrivals and the loop probe), position = place in its own read turn, + delivery floor";
/** The method of a result that has no quantile-shift histograms (no window request read): the chunk figure alone. */
const CHUNK_METHOD =
  'chunk bound alone (no request to take a quantile shift from), + delivery floor (half the probe round trip p10 on loopback): union bound on residual + position, residual = max(read-turn residual, lateness of arrivals and the loop probe), position = place in its own read turn';

/** The histograms of one run's meter, under their names in the run's histograms. */
export function timestampErrorHistograms(m: LoopTurnMeter): Record<string, Histogram> {
  return {
    [TIMESTAMP_ERROR_HISTOGRAMS.turns]: m.turns,
    [TIMESTAMP_ERROR_HISTOGRAMS.readTurns]: m.readTurns,
    [TIMESTAMP_ERROR_HISTOGRAMS.late]: m.late,
  };
}

/**
 * The section, from a run's histograms (or several runs' merged) over the loop time they were
 * observed for; null when no read was timed. Threads and shards: a read is delayed by its own
 * loop, and the merged histograms are the mixture over every loop's reads, weighted as the
 * reads were, over the loops' time added up. Replicates: the runs' loops one after another.
 */
export function timestampErrorOf(histograms: Record<string, Histogram>, observedMs: number, deliveryMs = 0): TimestampError | null {
  const h = (k: keyof typeof TIMESTAMP_ERROR_HISTOGRAMS) => histograms[TIMESTAMP_ERROR_HISTOGRAMS[k]];
  const [turns, reads, late] = [h('turns'), h('readTurns'), h('late')];
  const chunk = turns && reads && late ? timestampError(turns, reads, late, observedMs, deliveryMs) : null;
  return chunk && withQuantileShift(chunk, histograms);
}

/**
 * The quantile figures: how far the timestamps can have moved the TTFT quantiles (p50…p999)
 * and the E2E quantiles (`e2e`) themselves, which the chunk bound (kept as `chunk`, for the
 * gaps between chunks) cannot say. That one describes a typical chunk, but the requests in a
 * quantile's tail are not typical ones: when late reads come in bursts (a long turn delays every
 * read queued behind it) those requests become the tail, and the quantile moves by more than a
 * typical chunk is late; at light load the tail is the server's slow requests, read on time, and
 * the quantile moves by far less than the few chunks a stall or a timer's millisecond grain held
 * up.
 *
 * Each window request carries its own bound b (its read's lateness, src/client/client.ts) and
 * its client latency c ≥ its true latency x ≥ c − b (a timestamp is never early). With
 * l = c − b recorded per request (the `…Earliest` histograms), x ≥ l request by request, so
 * every quantile keeps the order: q_p(l) ≤ q_p(x) ≤ q_p(c), and the shift q_p(c) − q_p(x) is at
 * most q_p(c) − q_p(l), plus the delivery floor every read waits before it can be seen. Both
 * histograms merge like any other (threads, shards, replicates: the requests pooled). Taken at
 * the same bucket edge on both sides (each quantile as the histograms report it), so the shift
 * comes in steps of a bucket, which is why these four histograms are kept at 4 digits
 * (SHIFT_DIGITS, src/metrics/histogram.ts): 2 µs at a 50 ms TTFT, where 3 digits gave 32 µs and
 * 512 µs at a 700 ms E2E, steps larger than the shift of an idle loop. It holds as far as each
 * b does: b counts the OS's wait for the core (src/client/run-delay.ts), and what it misses is
 * the delivery floor's own spread, a median (tens of µs), measured against the server's write
 * times by `npm run bench:error`.
 */
function withQuantileShift(chunk: TimestampError, histograms: Record<string, Histogram>): TimestampError {
  const delivery = chunk.delivery_ms ?? 0;
  // TTFT's and E2E's figures apart: a request's last read can wait more than its first (at light
  // load, behind the other streams' reads), and one figure for both would hand TTFT rules E2E's.
  const figures = (client: string, earliest: string): QuantileShift | null => {
    const [c, l] = [histograms[client], histograms[earliest]];
    if (!c || !l || c.totalCount === 0 || l.totalCount === 0) return null;
    const [cb, lb] = [bucketsOf(c), bucketsOf(l)];
    const worst = { p50: 0, p90: 0, p99: 0, p999: 0 };
    for (const [, p] of PERCENTILES) {
      const band = quantileBand(p);
      worst[band] = Math.max(worst[band], percentileOf(cb, p) - percentileOf(lb, p));
    }
    return {
      p50: round3(delivery + worst.p50),
      p90: round3(delivery + worst.p90),
      p99: round3(delivery + worst.p99),
      p999: round3(delivery + worst.p999),
    };
  };
  const own = { p50: chunk.p50, p90: chunk.p90, p99: chunk.p99 };
  const e2e = figures('e2e', 'e2eEarliest');
  const ttft = figures('ttft', 'ttftEarliest') ?? e2e;
  if (!ttft) return { ...chunk, chunk: own };
  const max = maxOf([...Object.values(ttft), ...Object.values(e2e ?? {})], chunk.max);
  return { ...chunk, ...ttft, ...(e2e ? { e2e } : {}), chunk: own, max, method: METHOD };
}

type QuantileShift = Static<typeof E2eShiftSchema>;

export type QuantileBand = 'p50' | 'p90' | 'p99' | 'p999';

/**
 * Which quantile figure holds a percentile. A shift is not monotone in p (the median can move
 * more than the p99), so the p95 a rule may quote is not bounded by interpolating the p90's and
 * the p99's: each figure is the largest shift over the percentiles the gate quotes in its band
 * (p50: 50; p90: 90, 95; p99: 99; p999: 99.9; src/metrics/histogram.ts PERCENTILES), and the
 * gate reads the figure of the band its percentile falls in (src/gate/timing-validity.ts). Taken
 * over every percentile of a band instead, the p50 figure would carry the p90's shift, near the
 * ceiling several times the median's; and a p99 figure that also held the p99.9 would carry the
 * shift of the one or two slowest requests in a thousand, at light load several times the p99's.
 */
export function quantileBand(p: number): QuantileBand {
  return p >= 99.9 ? 'p999' : p >= 99 ? 'p99' : p >= 90 ? 'p90' : 'p50';
}

/**
 * The delivery floor H of a run (see timestampError): half the network probe's 10th-percentile
 * round trip when the target is on this machine's loopback (the median in results older than
 * the p10), else 0 (null probe: 0 too).
 */
export function deliveryFloorMs(loopbackTarget: boolean, rttMs: { p10?: number; p50: number } | null | undefined): number {
  return loopbackTarget && rttMs ? (rttMs.p10 ?? rttMs.p50) / 2 : 0;
}

/** The loop time several results were observed over, ms, added up; undefined unless every one has the section (older results). */
export function observedLoopMs(results: Result[]): number | undefined {
  if (!results.every((r) => r.generator.timestamp_error_ms !== undefined)) return undefined;
  return results.reduce((a, r) => a + (r.generator.timestamp_error_ms?.observed_s ?? 0) * 1000, 0);
}

/**
 * How late a chunk's timestamp is, as the generator can tell from inside.
 *
 * A chunk is stamped when its socket's read runs (src/client/client.ts). Between the server's
 * write and that moment the byte waits for two things: first for the loop to come round to a
 * poll, the **residual** R of whatever the thread was busy with when the byte arrived (a read
 * turn, a dispatch, a GC pause, or the OS running something else); then for the reads ahead of
 * it in the turn that reads it, its **position** Q: a turn reads and stamps every socket its poll
 * found readable before it hands any chunk on to be handled (src/client/direct-reads.ts), so
 * only those reads are ahead of it. And before either, the byte must reach
 * the thread at all: the **delivery** H, from the server's write to the moment a sleeping loop
 * is woken with it readable. So the error is D = H + R + Q.
 *
 * - H. Nothing inside the loop sees it (the loop is asleep until it ends), but the network probe
 *   (src/server/network.ts) times a whole round trip before the warmup: the request's delivery
 *   to the server, the server's handling of GET /models, the answer's delivery back and this
 *   loop's wake-up — two deliveries and a handling, so half of it is at least one delivery. On
 *   loopback, where the server's write and the byte's arrival are one moment, that half is taken
 *   as a constant floor under every quantile (measured by bench:error: tens of µs that the loop's
 *   own figures miss at light load). Half of the round trips' 10th percentile, of 30 probes, not
 *   of their median: the handling of /models is most of a loopback round trip and varies from
 *   run to run by more than the delivery itself, and the median of a few round trips carried
 *   that variation into every figure, a floor now too low to cover the request at a quantile's
 *   place, now several times what it waited. On another host the wire's share is the network's,
 *   common to both runs of a comparison and part of every latency the users see, not an error of
 *   this generator's timestamps: H = 0 there, and the bound reads from the byte's arrival.
 *
 * - R. A byte arrives at a moment that has nothing to do with the generator's loop (the server
 *   paces it), so it lands in a turn of length T with probability T / (time observed) — the
 *   inspection paradox: long turns catch more arrivals — and then waits the rest of it, uniform
 *   on (0, T). Over the turns counted nᵢ times at length Tᵢ, observed for time W:
 *     P(R > w) = Σ nᵢ·(Tᵢ − w)⁺ / W.
 *   That sees only read turns. Everything else that holds the thread up shows in the lateness
 *   of work due at known moments: each arrival's schedule lag (the dispatcher spins the last
 *   1–2 ms before it, so the lag is the residual a byte arriving then would have waited) and
 *   the loop probe's timer — samples of R itself, at moments as unrelated to the loop as the
 *   byte's. R's tail is taken as the larger of the two at every w.
 * - Q. A read's place in its own turn: the turn a read is in is drawn read-weighted (a turn
 *   of k reads holds k of them), and the read sits uniformly in the span of the turn's reads,
 *   from its first read to its last (the handling comes after them). Over turns whose reads are
 *   counted mᵢ with a span of Tᵢ:
 *     P(Q > w) = Σ mᵢ·(1 − w/Tᵢ)⁺ / Σ mᵢ.
 * - D = R + Q. R and Q are not independent (a long turn leaves a backlog for the next one),
 *   so the quantile is bounded whatever ties them: P(R + Q > a + b) ≤ P(R > a) + P(Q > b), so
 *   D's p-quantile is at most R's (1 − α)-quantile plus Q's (1 − (1 − p − α))-quantile for any
 *   split 0 < α < 1 − p; the smallest over a grid of splits is reported. When one of the two is
 *   negligible (light load: R ≈ 0) the bound is close to the other's quantile; when both are
 *   large and heavy-tailed (past the generator's ceiling) it is up to a few times the actual
 *   error, erring high.
 *
 * Measured against the simulator's own write times by `npm run bench:error`.
 */
export function timestampError(
  turnsH: Histogram,
  readsH: Histogram,
  lateH: Histogram,
  observedMs: number,
  deliveryMs = 0,
): TimestampError | null {
  if (readsH.totalCount === 0 || observedMs <= 0) return null;
  const turns = bucketsOf(turnsH);
  const reads = bucketsOf(readsH);
  const late = bucketsOf(lateH);
  const longestTurn = turns.values[turns.values.length - 1] ?? 0;
  const worstLate = late.values[late.values.length - 1] ?? 0;
  const hi = Math.max(longestTurn, worstLate) + longestTurn;
  const residualTail = (w: number) => Math.max(turnResidualTail(turns, observedMs, w), sampleTail(late, w));
  const positionTail = (w: number) => readPositionTail(reads, w);
  const bound = (p: number) => {
    const miss = 1 - p;
    let best = Infinity;
    for (let k = 1; k < SPLITS; k++) {
      const alpha = (miss * k) / SPLITS;
      best = Math.min(best, quantileOfTail(residualTail, alpha, hi) + quantileOfTail(positionTail, miss - alpha, hi));
    }
    return round3(deliveryMs + best);
  };
  return {
    p50: bound(0.5),
    p90: bound(0.9),
    p99: bound(0.99),
    max: round3(deliveryMs + hi),
    delivery_ms: round3(deliveryMs),
    method: CHUNK_METHOD,
    observed_s: round3(observedMs / 1000),
  };
}

/** Splits of 1 − p between R and Q that are tried. */
const SPLITS = 40;

/** Σ nᵢ·(Tᵢ − w)⁺ / W, at most 1. */
function turnResidualTail(turns: Buckets, observedMs: number, w: number): number {
  let s = 0;
  for (let i = 0; i < turns.values.length; i++) if (turns.values[i] > w) s += turns.counts[i] * (turns.values[i] - w);
  return Math.min(1, s / observedMs);
}

/** Share of samples above w. */
function sampleTail(b: Buckets, w: number): number {
  let s = 0;
  for (let i = 0; i < b.values.length; i++) if (b.values[i] > w) s += b.counts[i];
  return b.n > 0 ? s / b.n : 0;
}

/** Σ mᵢ·(1 − w/Tᵢ)⁺ / Σ mᵢ. */
function readPositionTail(reads: Buckets, w: number): number {
  let s = 0;
  for (let i = 0; i < reads.values.length; i++) if (reads.values[i] > w) s += reads.counts[i] * (1 - w / reads.values[i]);
  return reads.n > 0 ? s / reads.n : 0;
}

/** Smallest w in [0, hi] with tail(w) ≤ q, by bisection to 1 µs (every tail here is non-increasing and 0 at hi). */
function quantileOfTail(tail: (w: number) => number, q: number, hi: number): number {
  if (tail(0) <= q) return 0;
  let lo = 0;
  while (hi - lo > 0.001) {
    const mid = (lo + hi) / 2;
    if (tail(mid) <= q) hi = mid;
    else lo = mid;
  }
  return hi;
}
