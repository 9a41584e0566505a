import { bucketsOf } from '../metrics/buckets.js';
import { drawPercentile } from '../metrics/bootstrap.js';
import { decodeHistogram } from '../metrics/histogram.js';
import { quantileOfSorted } from '../metrics/stats.js';
import { round3 } from '../numbers.js';
import { createRng, deriveSeed } from '../rng.js';
import { latencyTarget, sortedLatencyKeys } from '../gate/targets.js';
import { THROUGHPUT } from '../gate/regression.js';
import { compare } from '../gate/compare.js';
import { errorBound } from '../gate/timing-validity.js';
import { gateOf } from '../spec/gate-schema.js';
import type { GateSpec, LatencyKey, ThroughputKey } from '../spec/gate-schema.js';
import type { Result } from '../result/types.js';
import { HISTORY_LINE_VERSION, type HistoryFigure, type HistoryLine, type LineMeta } from './types.js';

/** Bootstrap draws behind each percentile's interval: enough for a 95 % interval's ends to settle to a few tenths of a percent. */
const DRAWS = 400;

/** The history line of one result: every figure its gate judges, with a 95 % interval and the timestamp error bound. */
export function historyLine(r: Result, gate: GateSpec, meta: LineMeta = {}): HistoryLine {
  return {
    v: HISTORY_LINE_VERSION,
    run_id: r.run_id,
    date: r.created_at,
    commit: meta.commit ?? null,
    ref: meta.ref ?? null,
    spec_name: r.spec.name,
    spec_hash: r.spec_hash,
    runner: meta.runner ?? null,
    verdict: meta.verdict ?? (r.validity.valid ? 'pass' : 'inconclusive'),
    metrics: { ...latencyFigures(r, gate), ...throughputFigures(r, gate), ...rateFigures(r, gate) },
  };
}

/** The latency keys a gate judges: its regression rules and its latency SLOs, enabled ones only. */
export function gatedLatencyKeys(gate: GateSpec): string[] {
  const keys = new Set<string>();
  for (const [k, rule] of Object.entries(gate.latency)) if (rule?.enabled) keys.add(k);
  for (const [k, rule] of Object.entries(gate.slo)) if (/_p\d+$/.test(k) && (rule as { enabled?: boolean }).enabled) keys.add(k);
  return sortedLatencyKeys([...keys]);
}

function latencyFigures(r: Result, gate: GateSpec): Record<string, HistoryFigure> {
  const out: Record<string, HistoryFigure> = {};
  for (const key of gatedLatencyKeys(gate)) {
    const t = latencyTarget(key as LatencyKey);
    const value = r.metrics[t.metric]?.[t.pct];
    if (value === undefined) continue;
    const ci = percentileInterval(r, t.histogram, t.p, `${r.run_id}/${key}`);
    // The bound the gate reads for this metric at this percentile (src/gate/timing-validity.ts).
    const tsError = r.generator.timestamp_error_ms ? round3(errorBound(r, t.p, t.gate).ms) : null;
    out[key] = { value, ...ci, unit: 'ms', better: 'lower', timestamp_error_ms: tsError };
  }
  return out;
}

/** The percentile bootstrap's 2.5 % and 97.5 % quantiles, seeded by the run and the key so a line is reproducible. */
function percentileInterval(r: Result, histogram: string, p: number, purpose: string): { lower: number | null; upper: number | null } {
  const encoded = r.histograms[histogram];
  const b = encoded === undefined ? null : bucketsOf(decodeHistogram(encoded));
  if (b === null || b.n === 0) return { lower: null, upper: null };
  const rng = createRng(deriveSeed(1, purpose));
  const draws = new Float64Array(DRAWS);
  for (let i = 0; i < DRAWS; i++) draws[i] = drawPercentile(b, p, rng);
  draws.sort();
  return { lower: round3(quantileOfSorted(draws, 0.025)), upper: round3(quantileOfSorted(draws, 0.975)) };
}

/**
 * A throughput is a count over the window: with N completed requests its relative standard
 * error is about 1/√N (Poisson), so the 95 % interval is value · (1 ± 1.96/√N).
 */
function throughputFigures(r: Result, gate: GateSpec): Record<string, HistoryFigure> {
  const out: Record<string, HistoryFigure> = {};
  const n = r.requests.window.by_class.ok;
  for (const [key, rule] of Object.entries(gate.throughput) as [ThroughputKey, { enabled: boolean }][]) {
    if (!rule.enabled || r.requests.window.scheduled === 0) continue;
    const m = THROUGHPUT[key];
    const value = round3(m.value(r));
    const half = n > 0 ? 1.96 / Math.sqrt(n) : null;
    const ci = half === null ? { lower: null, upper: null } : { lower: round3(value * (1 - half)), upper: round3(value * (1 + half)) };
    out[key] = { value, ...ci, unit: m.unit, better: 'higher', timestamp_error_ms: null };
  }
  return out;
}

/** The error rate and the goodput fraction, kept for the trend without an interval: the gate judges them run by run. */
function rateFigures(r: Result, gate: GateSpec): Record<string, HistoryFigure> {
  const w = r.requests.window;
  if (w.scheduled === 0) return {};
  const out: Record<string, HistoryFigure> = {};
  const plain = { lower: null, upper: null, unit: 'fraction' as const, timestamp_error_ms: null };
  if (gate.error_rate.enabled) out.error_rate = { value: round3((w.scheduled - w.by_class.ok) / w.scheduled), ...plain, better: 'lower' };
  if (gate.slo.goodput_fraction.enabled && r.goodput.fraction !== null)
    out.goodput_fraction = { value: round3(r.goodput.fraction), ...plain, better: 'higher' };
  return out;
}

/** What reports call a history key: "TPOT p50", "Output tokens/s", "Error rate". */
export function figureLabel(key: string): string {
  if (/_p\d+$/.test(key)) return latencyTarget(key as LatencyKey).label;
  if (key in THROUGHPUT) return THROUGHPUT[key as ThroughputKey].label;
  return key === 'error_rate' ? 'Error rate' : key === 'goodput_fraction' ? 'Goodput fraction' : key;
}

/** A result's line with its verdict on its own (its gate's SLO rules) unless `meta` brings the gate's verdict against a baseline. */
export function lineOfResult(r: Result, meta: LineMeta = {}): HistoryLine {
  const gate = gateOf(r.spec);
  return historyLine(r, gate, { ...meta, verdict: meta.verdict ?? compare(null, r, gate).verdict });
}
