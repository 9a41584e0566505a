import type { Outcome, StreamObserver } from '../client/types.js';
import { OUTCOMES } from '../client/types.js';
import { tokenCountProblem } from '../client/bounds.js';
import { newHistogram, recordMs, SHIFT_DIGITS, type Histogram } from './histogram.js';
import type { PatternRecorder } from './pattern-recorder.js';
import { SegmentHistograms } from './segments.js';
import { TimeSeries } from './timeseries.js';

export interface Slo {
  ttft_ms: number;
  tpot_ms: number;
  e2e_ms: number;
}

/** One request's timeline, in absolute ms. It is its own stream observer, so the hot path allocates one object per request. */
export class RequestRecord implements StreamObserver {
  tSend = NaN;
  /** When the request was (last) written on a connection. */
  tWritten = NaN;
  tHeaders = NaN;
  tFirst = NaN;
  tFirstAnswer = NaN;
  tLast = NaN;
  /** How late tFirst and tLast can be (ms): their reads' own bounds (StreamObserver.onContent). */
  lateFirst = 0;
  lateLast = 0;
  tEnd = NaN;
  status = 0;
  chunks = 0;
  usagePrompt = -1;
  usageCompletion = -1;
  outcome: Outcome | null = null;
  detail: string | undefined;

  constructor(
    private readonly recorder: Recorder,
    /** Whose window tallies this request feeds: the recorder's own for a window request, else its rehearsal's. */
    readonly tally: Recorder,
    readonly id: number,
    readonly tSched: number,
    readonly promptTokens: number,
    readonly maxTokens: number,
    /** Slice of its tally's window by intended send time (segments.ts); -1 outside it. */
    readonly segment = -1,
  ) {}

  onWritten(t: number): void {
    this.tWritten = t;
  }

  onReconnect(): void {
    this.recorder.reconnects++;
  }

  onHeaders(t: number, status: number): void {
    this.tHeaders = t;
    this.status = status;
  }

  onContent(t: number, kind: 'reasoning' | 'answer', late = 0): void {
    if (this.chunks === 0) {
      this.tFirst = t;
      this.lateFirst = late;
    } else {
      recordMs(this.tally.h.itl, t - this.tLast);
      this.tally.segments.record(this.segment, 'itl', t - this.tLast);
    }
    if (kind === 'answer' && Number.isNaN(this.tFirstAnswer)) this.tFirstAnswer = t;
    this.tLast = t;
    this.lateLast = late;
    this.chunks++;
  }

  onUsage(promptTokens: number, completionTokens: number): void {
    // The client classifies an impossible count as a malformed chunk; a count the histograms
    // cannot record is never kept, whoever reports it.
    if (tokenCountProblem(promptTokens) !== null || tokenCountProblem(completionTokens) !== null) return;
    this.usagePrompt = promptTokens;
    this.usageCompletion = completionTokens;
  }

  onEnd(t: number, outcome: Outcome, detail?: string): void {
    if (this.outcome !== null) return;
    this.tEnd = t;
    this.outcome = outcome;
    this.detail = detail;
    this.recorder.complete(this);
  }

  /** Scheduled in the window: its tallies are the recorder's own. */
  get inWindow(): boolean {
    return this.tally === this.recorder;
  }

  /** Unique within a run: `<thread>-<arrival index>`; generator threads number their arrivals independently. */
  get recordId(): string {
    return `${this.recorder.o.thread ?? 0}-${this.id}`;
  }

  /** Sent as x-request-id: unique across runs, so server logs can be joined with our records. */
  get requestId(): string {
    return `${this.recorder.o.runId}-${this.id}`;
  }

  /** Output tokens: the server's usage when it sent one, else the number of content chunks. */
  get outputTokens(): number {
    return this.usageCompletion >= 0 ? this.usageCompletion : this.chunks;
  }
}

export interface RecorderOptions {
  /** Short random tag of this run, prefixed to every request id. */
  runId: string;
  /** Index of the generator thread this recorder belongs to; 0 (the default) in a one-thread run. */
  thread?: number;
  /** Absolute ms of time zero of the run (schedule offsets are relative to it). */
  runStart: number;
  /**
   * Measured window by intended send time, as offsets in ms from runStart. Offsets, not absolute
   * times: at epoch magnitudes a float loses the sub-µs precision that decides boundary arrivals.
   */
  windowFromMs: number;
  windowToMs: number;
  slo: Slo;
  /** Called with every finished request, for the optional raw JSONL file. */
  onRecord?: (r: RequestRecord) => void;
  /** Per-bucket and per-phase figures of a time-varying load (src/metrics/pattern-recorder.ts). */
  pattern?: PatternRecorder;
}

/** Distinct (class, detail) pairs kept as error samples: enough to name every failure mode, bounded so a broken server cannot grow a result. */
export const MAX_ERROR_SAMPLES = 20;

/**
 * Aggregates finished requests into histograms and counters. Memory is bounded by
 * histogram size, the per-second series and in-flight requests — never by run length.
 */
export class Recorder {
  readonly h = {
    ttft: newHistogram(SHIFT_DIGITS),
    ttftFromSend: newHistogram(),
    timeToFirstAnswer: newHistogram(),
    tpot: newHistogram(),
    itl: newHistogram(),
    e2e: newHistogram(SHIFT_DIGITS),
    normalized: newHistogram(),
    scheduleLag: newHistogram(),
    poolWait: newHistogram(),
    promptTokens: newHistogram(),
    outputTokens: newHistogram(),
    requestedPromptTokens: newHistogram(),
    requestedOutputTokens: newHistogram(),
    /**
     * TTFT and E2E less their read's own lateness bound, per window request: the earliest its
     * first (last) token can truly have come. Every quantile of the true latencies is at least
     * the same quantile of these, so the distance between the two histograms' quantiles bounds
     * how far the generator's timestamps moved each quantile (src/result/timestamp-error.ts).
     */
    ttftEarliest: newHistogram(SHIFT_DIGITS),
    e2eEarliest: newHistogram(SHIFT_DIGITS),
  } satisfies Record<string, Histogram>;
  readonly byClass = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  readonly windowByClass = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  readonly series: TimeSeries;
  scheduled = 0;
  /** Dispatched: scheduled less dropped. */
  sent = 0;
  windowScheduled = 0;
  windowDispatched = 0;
  windowOk = 0;
  windowGood = 0;
  /** Successful requests that ended inside the window, whenever they were scheduled, and their tokens: throughput. */
  completedInWindow = 0;
  completedPromptTokens = 0;
  completedOutputTokens = 0;
  usageMissing = 0;
  usageChunkMismatch = 0;
  /** Successful window requests that got fewer output tokens than max_tokens, and the tokens they lacked in all. */
  windowShortRequests = 0;
  windowShortTokens = 0;
  inFlight = 0;
  /** Most requests in flight at once while the window was open (sends during the window). */
  inFlightPeak = 0;
  /** ∫ in-flight dt over the window (ms·requests), for the Little's-law check. */
  inFlightIntegral = 0;
  /** Σ (end − send) of dispatched window requests: W in L = λW. */
  windowTimeInSystem = 0;
  /** Requests re-sent on a new connection after a reused one was closed under them unanswered. */
  reconnects = 0;
  readonly errorSamples = new Map<string, { outcome: Outcome; detail: string; count: number }>();
  readonly segments: SegmentHistograms;
  /**
   * The window's rehearsal: a recorder of the same class whose window is the time before the
   * real one, never read. Every request outside the window feeds its window tallies instead of
   * skipping them, so the warmup runs the very code the window runs, on objects of the same
   * shapes. Skipped, that code would first run when the window opens: V8 then drops the
   * optimized code built on the warmup's narrower type feedback (or on a field that held only
   * small integers until a window tally added a fraction to it) and compiles it again on its
   * helper threads, which take the generator's core for milliseconds at a time while the
   * window's first requests stream in (docs/benchmarks.md, "The warmup rehearses the window").
   * A rehearsal's own rehearsal is itself: it opens no request.
   */
  private readonly rehearsal: Recorder;

  readonly o: RecorderOptions;

  constructor(options: RecorderOptions, isRehearsal = false) {
    // One literal for every recorder's options, so a recorder and its rehearsal share its shape:
    // the window's code reads them through either.
    const o = {
      runId: options.runId,
      thread: options.thread,
      runStart: options.runStart,
      windowFromMs: options.windowFromMs,
      windowToMs: options.windowToMs,
      slo: options.slo,
      onRecord: options.onRecord,
      pattern: options.pattern,
    };
    this.o = o;
    this.series = new TimeSeries(o.runStart);
    this.segments = new SegmentHistograms(o.windowFromMs, o.windowToMs);
    this.rehearsal = isRehearsal
      ? this
      : new Recorder({ ...o, windowFromMs: 0, windowToMs: o.windowFromMs, onRecord: undefined, pattern: undefined }, true);
  }

  /** Whether an offset (ms after runStart) lies in this recorder's window. */
  private covers(offsetMs: number): boolean {
    return offsetMs >= this.o.windowFromMs && offsetMs < this.o.windowToMs;
  }

  /** The recorder whose window tallies an offset feeds: this one inside its window, else the rehearsal. */
  private tallyAt(offsetMs: number): Recorder {
    return this.covers(offsetMs) ? this : this.rehearsal;
  }

  /** A request whose time has come (offset ms after runStart): it is counted now, whatever happens to it. */
  open(id: number, offsetMs: number, promptTokens: number, maxTokens: number): RequestRecord {
    const tally = this.tallyAt(offsetMs);
    const tSched = this.o.runStart + offsetMs;
    this.scheduled++;
    this.o.pattern?.opened(offsetMs);
    tally.windowScheduled++;
    tally.h.requestedPromptTokens.recordValue(promptTokens);
    tally.h.requestedOutputTokens.recordValue(maxTokens);
    return new RequestRecord(this, tally, id, tSched, promptTokens, maxTokens, tally.segments.indexOf(offsetMs));
  }

  markSent(r: RequestRecord, tSend: number): void {
    r.tSend = tSend;
    this.sent++;
    this.inFlight++;
    const offset = tSend - this.o.runStart;
    const sentIn = this.tallyAt(offset);
    if (sentIn.covers(offset) && this.inFlight > sentIn.inFlightPeak) sentIn.inFlightPeak = this.inFlight;
    this.series.recordSent(tSend);
    r.tally.windowDispatched++;
    recordMs(r.tally.h.scheduleLag, tSend - r.tSched);
  }

  complete(r: RequestRecord): void {
    const dispatched = !Number.isNaN(r.tSend);
    if (dispatched) {
      this.inFlight--;
      this.countTimeInFlight(r);
      if (this.rehearsal !== this) this.rehearsal.countTimeInFlight(r);
      r.tally.windowTimeInSystem += r.tEnd - r.tSend;
      // From send to the write that counted: a re-sent request waited through its lost first
      // attempt and a new connection, time the server never saw it (its TTFT includes it too).
      if (!Number.isNaN(r.tWritten)) recordMs(r.tally.h.poolWait, r.tWritten - r.tSend);
    }
    this.byClass[r.outcome!]++;
    this.series.recordFinished(r.tEnd, r.outcome === 'ok', r.outputTokens);
    const endOffset = r.tEnd - this.o.runStart;
    const endedIn = this.tallyAt(endOffset);
    if (r.outcome === 'ok' && endedIn.covers(endOffset)) {
      endedIn.completedInWindow++;
      endedIn.completedOutputTokens += r.outputTokens;
      if (r.usagePrompt > 0) endedIn.completedPromptTokens += r.usagePrompt;
    }
    if (r.outcome !== 'ok') this.sampleError(r);
    r.tally.countInWindow(r);
    this.o.pattern?.complete(r);
    this.o.onRecord?.(r);
  }

  /** A dispatched request's time in flight within this recorder's window: ∫ in-flight dt. */
  private countTimeInFlight(r: RequestRecord): void {
    const from = Math.max(r.tSend, this.o.runStart + this.o.windowFromMs);
    const to = Math.min(r.tEnd, this.o.runStart + this.o.windowToMs);
    if (to > from) this.inFlightIntegral += to - from;
  }

  /** A request scheduled in this recorder's window: its class, and for a success its token counts and latencies. */
  private countInWindow(r: RequestRecord): void {
    this.windowByClass[r.outcome!]++;
    if (r.outcome !== 'ok') return;
    this.windowOk++;
    const n = r.outputTokens;
    if (r.usageCompletion < 0) this.usageMissing++;
    else if (r.usageCompletion !== r.chunks) this.usageChunkMismatch++;
    if (r.usagePrompt >= 0) this.h.promptTokens.recordValue(r.usagePrompt);
    this.h.outputTokens.recordValue(n);
    if (n < r.maxTokens) {
      this.windowShortRequests++;
      this.windowShortTokens += r.maxTokens - n;
    }
    if (r.chunks === 0) return;
    const ttft = r.tFirst - r.tSched;
    const e2e = r.tLast - r.tSched;
    recordMs(this.h.ttft, ttft);
    recordMs(this.h.ttftFromSend, r.tFirst - r.tSend);
    if (!Number.isNaN(r.tFirstAnswer)) recordMs(this.h.timeToFirstAnswer, r.tFirstAnswer - r.tSched);
    recordMs(this.h.e2e, e2e);
    recordMs(this.h.ttftEarliest, ttft - r.lateFirst);
    recordMs(this.h.e2eEarliest, e2e - r.lateLast);
    if (n > 0) recordMs(this.h.normalized, e2e / n);
    const tpot = n > 1 ? (r.tLast - r.tFirst) / (n - 1) : NaN;
    if (n > 1) recordMs(this.h.tpot, tpot);
    this.segments.record(r.segment, 'ttft', ttft);
    this.segments.record(r.segment, 'e2e', e2e);
    if (n > 1) this.segments.record(r.segment, 'tpot', tpot);
    const slo = this.o.slo;
    if (ttft <= slo.ttft_ms && e2e <= slo.e2e_ms && !(tpot > slo.tpot_ms)) this.windowGood++;
  }

  private sampleError(r: RequestRecord): void {
    const detail = r.detail ?? '';
    const key = `${r.outcome}\u0000${detail}`;
    const s = this.errorSamples.get(key);
    if (s) s.count++;
    else if (this.errorSamples.size < MAX_ERROR_SAMPLES) this.errorSamples.set(key, { outcome: r.outcome!, detail, count: 1 });
  }
}

/** The recorder's histograms by name, as results store them (`histograms.<name>`). */
export type HistogramName = keyof Recorder['h'];
