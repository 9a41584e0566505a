import { expectedArrivals } from '../arrivals/curve.js';
import type { LoadPlan } from '../arrivals/load-plan.js';
// The gate's own percentile-rise test (metrics/, below result) judges the soak's drift.
import { segmentDrift, type DriftOutcome } from '../metrics/rise.js';
import { FIXED_FLOOR_MS, type GateSpec } from '../spec/gate-schema.js';
import { minOf, round3 } from '../numbers.js';
import type { Spec } from '../spec/types.js';
import { LATENCY_TARGETS, PHASE_METRICS, type PhaseMetric } from '../metrics/definitions.js';
import { decodeHistogram, encodeHistogram, summarizeMs, type Histogram } from '../metrics/histogram.js';
import { newBucketHistogram, type PatternPhaseStats, type PatternRecorder } from '../metrics/pattern-recorder.js';
import type { PatternPhase, PatternSection } from './pattern-section.js';

/*
 * The `pattern` section of a result: what a ramp, spike, steps or soak load showed over time.
 *
 * Sliding windows. TTFT p95 "at t" is the p95 of the requests scheduled in [t, t + w): the
 * latency of what was sent from t on. It is the percentile of the merged bucket histograms
 * (never an average of per-bucket percentiles). w is at least five buckets and long enough to
 * expect twice MIN_WINDOW_SAMPLES requests at the base rate; a window with fewer than
 * MIN_WINDOW_SAMPLES is not judged.
 *
 * Spike recovery: from the spike's end to the first bucket boundary t ≥ end at which TTFT p95
 * over [t, t + w) is within RECOVERY_TOLERANCE of the pre-spike p95 (all requests scheduled in
 * the window before the spike). Null when no such t leaves a whole window inside the steady
 * window: "did not recover within the window".
 *
 * Ramp and steps: each phase's summary; the first phase where achieved falls below offered —
 * successful completions in the phase < (1 − SATURATION_SHORTFALL) × scheduled, and short by
 * more than 3 √scheduled (beyond Poisson count noise) — and the first where TTFT p99 departs
 * from the floor: more than DEPART_FACTOR × the lowest phase p99.
 *
 * Soak drift: each latency percentile the gate's latency rules name (for TTFT, TPOT, E2E)
 * compared between the first and the last segment exactly as the gate compares a run with its
 * baseline: the bound is max(pct × first, ms) — pct from gate.soak.max_drift_pct, else the
 * rule's max_increase_pct; ms the rule's max_increase_ms — and "drift" needs the rise AND the
 * one-sided lower bound of its bootstrap interval (metrics/bootstrap.ts) beyond the bound. Within
 * noise is "none"; too few tail samples (the gate's min_tail_samples) is "inconclusive".
 */
export const RECOVERY_TOLERANCE = 0.1;
export const MIN_WINDOW_SAMPLES = 20;
export const SATURATION_SHORTFALL = 0.05;
export const DEPART_FACTOR = 2;

export type { PatternPhase, PatternSection } from './pattern-section.js';

/** The recorder-shaped figures a section is computed from: a run's recorder, or several results' merged. */
export interface PatternFacts {
  kind: PatternSection['kind'];
  intervalMs: number;
  windowFromMs: number;
  windowToMs: number;
  /** Base rate: load.rate (spike, soak) or the first rate (ramp, steps). */
  baseRate: number;
  names: string[];
  offeredPerS: number[];
  phaseOffered: number[];
  phases: PatternPhaseStats[];
  buckets: PatternRecorder['buckets'];
  spike?: { atMs: number; forMs: number };
  gate: GateSpec;
  /** Replicates merged: counts add, a per-second rate is their mean (1 / replicates). */
  rateScale?: number;
}

/** The rate sliding windows are sized for: a spike's or soak's load.rate, a ramp's or steps' mean rate. */
export function baseRateOf(load: Spec['load']): number {
  const p = load.pattern;
  if (p?.kind === 'ramp') return (p.from + p.to) / 2;
  if (p?.kind === 'steps') return p.rates.reduce((a, b) => a + b, 0) / p.rates.length;
  return load.rate;
}

/** The facts of one run: its plan and its recorder. */
export function patternFacts(
  plan: LoadPlan,
  rec: PatternRecorder,
  gate: GateSpec,
  baseRate: number,
  spike?: { atMs: number; forMs: number },
): PatternFacts {
  return {
    kind: plan.kind as PatternSection['kind'],
    intervalMs: rec.intervalMs,
    windowFromMs: plan.windowFromMs,
    windowToMs: plan.windowToMs,
    baseRate,
    names: plan.phases.map((p) => p.name),
    offeredPerS: rec.buckets.map((_, i) =>
      round3(expectedArrivals(plan.curve, i * rec.intervalMs, (i + 1) * rec.intervalMs) / (rec.intervalMs / 1000)),
    ),
    phaseOffered: plan.phases.map((p) => p.rate),
    phases: rec.phases,
    buckets: rec.buckets,
    spike,
    gate,
  };
}

function mergedWindow(buckets: PatternFacts['buckets'], from: number, to: number): Histogram | null {
  let h: Histogram | null = null;
  for (let i = Math.max(0, from); i < Math.min(to, buckets.length); i++) {
    const b = buckets[i].ttft;
    if (b) (h ??= newBucketHistogram()).add(b);
  }
  return h;
}

/** p95 of every window [i, i + w): one running histogram, each step adding a bucket and taking one out. */
function slidingP95(buckets: PatternFacts['buckets'], w: number): (number | null)[] {
  const running = mergedWindow(buckets, 0, w) ?? newBucketHistogram();
  return buckets.map((_, i) => {
    if (i > 0) {
      const out = buckets[i - 1].ttft;
      const inn = buckets[i + w - 1]?.ttft;
      if (out) running.subtract(out);
      if (inn) running.add(inn);
    }
    return p95(running);
  });
}

const p95 = (h: Histogram | null) => (h && h.totalCount >= MIN_WINDOW_SAMPLES ? round3(h.getValueAtPercentile(95) / 1000) : null);

export function buildPatternSection(f: PatternFacts): PatternSection {
  const iv = f.intervalMs;
  const w = Math.max(5, Math.ceil(((2 * MIN_WINDOW_SAMPLES) / Math.max(f.baseRate, 1e-9)) * (1000 / iv)));
  const lastStart = Math.floor(f.windowToMs / iv) - w; // last bucket whose window fits inside the steady window
  const sliding = slidingP95(f.buckets, w);
  const scale = f.rateScale ?? 1;
  const phases = f.phases.map((p, k) => phaseSummary(f.names[k], p, f.phaseOffered[k], scale));
  const section: PatternSection = {
    kind: f.kind,
    interval_s: iv / 1000,
    sliding_window_s: (w * iv) / 1000,
    window: { from_s: f.windowFromMs / 1000, to_s: f.windowToMs / 1000 },
    phases,
    series: {
      offered_per_s: f.offeredPerS,
      scheduled: f.buckets.map((b) => b.scheduled),
      ok: f.buckets.map((b) => b.ok),
      errors: f.buckets.map((b) => b.errors),
      achieved_per_s: f.buckets.map((b) => round3((b.completedOk * scale) / (iv / 1000))),
      ttft_p95_ms: sliding,
    },
    histograms: {
      buckets_ttft: f.buckets.map((b) => (b.ttft ? encodeHistogram(b.ttft) : '')),
      phases: f.phases.map((p) => ({ ttft: encodeHistogram(p.h.ttft), tpot: encodeHistogram(p.h.tpot), e2e: encodeHistogram(p.h.e2e) })),
    },
  };
  if (f.kind === 'spike' && f.spike) section.spike = spikeOutcome(f, iv, w, lastStart, sliding);
  if (f.kind === 'ramp' || f.kind === 'steps') section.steps = stepsOutcome(f.phases, phases);
  if (f.kind === 'soak') section.soak = soakOutcome(f);
  return section;
}

function phaseSummary(name: string, p: PatternPhaseStats, offered: number, scale: number): PatternPhase {
  const len = (p.toMs - p.fromMs) / 1000;
  const done = p.ok + p.errors;
  return {
    name,
    from_s: round3(p.fromMs / 1000),
    to_s: round3(p.toMs / 1000),
    offered_rate_per_s: offered,
    scheduled: p.scheduled,
    ok: p.ok,
    errors: p.errors,
    error_rate: done > 0 ? round3(p.errors / done) : null,
    achieved_rate_per_s: len > 0 ? round3((p.completedOk * scale) / len) : 0,
    ttft_ms: summarizeMs(p.h.ttft),
    tpot_ms: summarizeMs(p.h.tpot),
    e2e_ms: summarizeMs(p.h.e2e),
    generator: p.memory && { rss_mb: round3(p.memory.rss_mb), heap_mb: round3(p.memory.heap_mb) },
  };
}

function spikeOutcome(
  f: PatternFacts,
  iv: number,
  w: number,
  lastStart: number,
  sliding: (number | null)[],
): NonNullable<PatternSection['spike']> {
  const { atMs, forMs } = f.spike!;
  const start = f.windowFromMs + atMs;
  const end = start + forMs;
  const pre = p95(mergedWindow(f.buckets, Math.ceil(f.windowFromMs / iv), Math.floor(start / iv)));
  let recovery: number | null = null;
  if (pre !== null) {
    for (let i = Math.ceil(end / iv - 1e-9); i <= lastStart; i++) {
      const v = sliding[i];
      if (v !== null && v <= pre * (1 + RECOVERY_TOLERANCE)) {
        recovery = round3((i * iv - end) / 1000);
        break;
      }
    }
  }
  const during = f.phases[f.names.indexOf('spike')];
  const done = during ? during.ok + during.errors : 0;
  return {
    at_s: atMs / 1000,
    for_s: forMs / 1000,
    pre_ttft_p95_ms: pre,
    during: {
      ttft_ms: during ? summarizeMs(during.h.ttft) : null,
      errors: during?.errors ?? 0,
      error_rate: done > 0 ? round3(during.errors / done) : null,
    },
    recovery_s: recovery,
    rule: `from the spike's end until TTFT p95 over a sliding ${(w * iv) / 1000} s window is within ${RECOVERY_TOLERANCE * 100} % of the pre-spike p95`,
  };
}

function stepsOutcome(stats: PatternPhaseStats[], phases: PatternPhase[]): NonNullable<PatternSection['steps']> {
  const p99s = phases.map((p) => (p.ttft_ms && p.ttft_ms.count >= MIN_WINDOW_SAMPLES ? p.ttft_ms.p99 : null));
  const known = p99s.filter((v): v is number => v !== null);
  const floor = known.length > 0 ? minOf(known) : null;
  const saturated = stats.findIndex(
    (s) => s.completedOk < (1 - SATURATION_SHORTFALL) * s.scheduled && s.scheduled - s.completedOk > 3 * Math.sqrt(s.scheduled),
  );
  const departed = floor === null ? -1 : p99s.findIndex((v) => v !== null && v > DEPART_FACTOR * floor);
  return {
    floor_ttft_p99_ms: floor,
    first_saturated: saturated >= 0 ? phases[saturated].name : null,
    first_departed: departed >= 0 ? phases[departed].name : null,
    rule: `saturated: completions < ${(1 - SATURATION_SHORTFALL) * 100} % of the phase's arrivals and short by > 3√arrivals; departed: TTFT p99 > ${DEPART_FACTOR} × the lowest phase p99`,
  };
}

function soakOutcome(f: PatternFacts): NonNullable<PatternSection['soak']> {
  const g = f.gate;
  const drift: Record<string, DriftOutcome> = {};
  const first = f.phases[0];
  const last = f.phases[f.phases.length - 1];
  // The metric table (metrics/definitions.ts) says which histogram and percentile a rule's key names.
  for (const t of LATENCY_TARGETS) {
    const rule = g.latency[t.key];
    // The histograms each phase and soak segment keeps: the metric table's `phases`.
    const metric = t.histogram as PhaseMetric;
    if (!rule?.enabled || !(PHASE_METRICS as readonly string[]).includes(metric)) continue;
    const key = t.key;
    drift[key] = segmentDrift({
      first: first.h[metric],
      last: last.h[metric],
      p: t.p,
      pct: g.soak?.max_drift_pct ?? rule.max_increase_pct,
      floorMs: rule.max_increase_ms ?? FIXED_FLOOR_MS[key] ?? 0,
      minTail: g.min_tail_samples,
      confidence: g.confidence,
      iterations: g.bootstrap_iterations,
      id: key,
    });
  }
  return {
    segments: f.phases.length,
    drift,
    generator: {
      rss_mb: f.phases.map((p) => (p.memory ? round3(p.memory.rss_mb) : null)),
      heap_mb: f.phases.map((p) => (p.memory ? round3(p.memory.heap_mb) : null)),
    },
    rule: `last segment vs first, per gate latency rule: drift when the rise AND its ${Math.round(g.confidence * 100)} % one-sided bootstrap lower bound exceed max(pct × first, ms)`,
  };
}

/** The facts back out of sections (decoded histograms), so several can be added and judged again. */
function factsOf(s: PatternSection, gate: GateSpec): PatternFacts {
  const iv = s.interval_s * 1000;
  return {
    kind: s.kind,
    intervalMs: iv,
    windowFromMs: s.window.from_s * 1000,
    windowToMs: s.window.to_s * 1000,
    baseRate: 0,
    names: s.phases.map((p) => p.name),
    offeredPerS: [...s.series.offered_per_s], // a copy: merging adds into it, and inputs stay as they were
    phaseOffered: s.phases.map((p) => p.offered_rate_per_s),
    phases: s.phases.map((p, k) => ({
      fromMs: p.from_s * 1000,
      toMs: p.to_s * 1000,
      scheduled: p.scheduled,
      ok: p.ok,
      errors: p.errors,
      completedOk: Math.round(p.achieved_rate_per_s * (p.to_s - p.from_s)),
      h: {
        ttft: decodeHistogram(s.histograms.phases[k].ttft),
        tpot: decodeHistogram(s.histograms.phases[k].tpot),
        e2e: decodeHistogram(s.histograms.phases[k].e2e),
      },
      memory: p.generator,
    })),
    buckets: s.series.scheduled.map((n, i) => ({
      scheduled: n,
      ok: s.series.ok[i],
      errors: s.series.errors[i],
      completedOk: Math.round(s.series.achieved_per_s[i] * s.interval_s),
      ttft: s.histograms.buckets_ttft[i] ? decodeBucket(s.histograms.buckets_ttft[i]) : null,
    })),
    spike: s.spike && { atMs: s.spike.at_s * 1000, forMs: s.spike.for_s * 1000 },
    gate,
  };
}

function decodeBucket(encoded: string): Histogram {
  const h = newBucketHistogram();
  h.add(decodeHistogram(encoded));
  return h;
}

/**
 * Sections of shards (one clock: counts and rates add) or replicates (one after another: counts
 * add, rates are the replicates' mean), recomputed from the added histograms. Undefined unless
 * every input has one, of the same kind and buckets.
 */
export function mergePatternSections(
  sections: (PatternSection | undefined)[],
  shards: boolean,
  gate: GateSpec,
  baseRate: number,
): PatternSection | undefined {
  if (sections.length === 0 || sections.some((s) => s === undefined)) return undefined;
  const all = sections as PatternSection[];
  const [first] = all;
  if (all.some((s) => s.kind !== first.kind || s.interval_s !== first.interval_s || s.phases.length !== first.phases.length))
    return undefined;
  const facts = all.map((s) => factsOf(s, gate));
  const out = facts[0];
  const rateScale = shards ? 1 : 1 / all.length;
  for (const f of facts.slice(1)) {
    f.buckets.forEach((b, i) => {
      const o = (out.buckets[i] ??= { scheduled: 0, ok: 0, errors: 0, completedOk: 0, ttft: null });
      o.scheduled += b.scheduled;
      o.ok += b.ok;
      o.errors += b.errors;
      o.completedOk += b.completedOk;
      if (b.ttft) (o.ttft ??= newBucketHistogram()).add(b.ttft);
    });
    f.phases.forEach((p, k) => {
      const o = out.phases[k];
      o.scheduled += p.scheduled;
      o.ok += p.ok;
      o.errors += p.errors;
      o.completedOk += p.completedOk;
      for (const m of PHASE_METRICS) o.h[m].add(p.h[m]);
      // Threads and shards each report their own memory: the largest is the one that could have leaked.
      if (p.memory && o.memory)
        o.memory = { rss_mb: Math.max(o.memory.rss_mb, p.memory.rss_mb), heap_mb: Math.max(o.memory.heap_mb, p.memory.heap_mb) };
    });
    f.offeredPerS.forEach((v, i) => (out.offeredPerS[i] = (out.offeredPerS[i] ?? 0) + v));
    f.phaseOffered.forEach((v, k) => (out.phaseOffered[k] += v));
  }
  out.offeredPerS = out.offeredPerS.map((v) => round3(v * rateScale));
  out.phaseOffered = out.phaseOffered.map((v) => round3(v * rateScale));
  out.rateScale = rateScale;
  out.baseRate = baseRate;
  return buildPatternSection(out);
}
