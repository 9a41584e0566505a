import { num, pctText } from '../numbers.js';
import type { GateReport, RuleOutcome } from '../gate/types.js';
import type { Result } from '../result/types.js';

/**
 * One line per rule that failed or moved, naming the server-side figures that moved with it:
 *   "TTFT p95 +41 % (212 → 299 ms): server queue time p95 18 → 96 ms, requests waiting mean
 *    0.4 → 6.1, KV cache peak 71 → 98 %; network RTT unchanged (0.3 ms)"
 * computed from the two results' `server` and `network` sections, never guessed: a figure is
 * named only when both runs have it and it changed by more than its threshold. Pure; the
 * lines are unescaped (each renderer escapes for its format).
 */
export function explainRules(report: GateReport, baseline: Result | null, current: Result): string[] {
  if (!baseline) return [];
  return report.rules.filter(moved).map((r) => `${ruleHead(r)}: ${serverPart(baseline, current)}; ${networkPart(baseline, current)}`);
}

/** A rule "moves" when it did not pass or its value changed by at least this share. */
export const MOVE_SHARE = 0.1;

function moved(r: RuleOutcome): boolean {
  if (r.kind !== 'regression' || r.baseline === null || r.current === null) return false;
  return r.status === 'fail' || r.status === 'warn' || (r.change?.rel !== null && Math.abs(r.change?.rel ?? 0) >= MOVE_SHARE);
}

function ruleHead(r: RuleOutcome): string {
  const b = r.baseline!;
  const c = r.current!;
  if (r.unit === 'fraction') return `${r.metric} ${num((c - b) * 100, true)} pp (${pctText(b)} → ${pctText(c)})`;
  const rel = b !== 0 ? `${pctText((c - b) / b, true)} ` : '';
  return `${r.metric} ${rel}(${num(b)} → ${num(c)} ${r.unit})`;
}

interface Figure {
  label: string;
  get: (s: NonNullable<Result['server']>) => number | null | undefined;
  /** Shown as a percentage (a share 0…1) or with a unit. */
  show: (v: number) => string;
  /** Smallest change worth naming, beside a 20 % relative change. */
  floor: number;
}

const ms = (v: number) => `${num(v)} ms`;
const share = (v: number) => `${num(v * 100)} %`;
const plain = (v: number) => num(v);

/** The server figures an explanation may name, in the order it names them. */
export const SERVER_FIGURES: readonly Figure[] = [
  { label: 'server queue time p95', get: (s) => s.queue_time_ms?.p95, show: ms, floor: 2 },
  { label: 'server TTFT p95', get: (s) => s.ttft_ms?.p95, show: ms, floor: 2 },
  { label: 'requests waiting mean', get: (s) => s.summary.waiting?.mean, show: plain, floor: 0.5 },
  { label: 'requests running mean', get: (s) => s.summary.running?.mean, show: plain, floor: 0.5 },
  { label: 'KV cache peak', get: (s) => s.summary.kv_cache_usage?.max, show: share, floor: 0.05 },
  { label: 'prefix-cache hit rate', get: (s) => s.summary.prefix_cache_hit_rate, show: share, floor: 0.05 },
  { label: 'preemptions', get: (s) => s.summary.preemptions, show: plain, floor: 1 },
];
const RELATIVE = 0.2;

function serverPart(baseline: Result, current: Result): string {
  const [b, c] = [baseline.server, current.server];
  if (!b?.available || !c?.available) {
    const missing = !b?.available && !c?.available ? 'either run' : !b?.available ? 'the baseline' : 'the current run';
    return `no server metrics for ${missing}`;
  }
  const changed: string[] = [];
  for (const f of SERVER_FIGURES) {
    const [x, y] = [f.get(b), f.get(c)];
    if (x === null || x === undefined || y === null || y === undefined) continue;
    if (Math.abs(y - x) >= Math.max(f.floor, RELATIVE * Math.abs(x))) changed.push(`${f.label} ${f.show(x)} → ${f.show(y)}`);
  }
  return changed.length > 0 ? changed.join(', ') : 'no server-side figure moved';
}

function networkPart(baseline: Result, current: Result): string {
  const [b, c] = [baseline.network?.rtt_ms?.p50, current.network?.rtt_ms?.p50];
  if (b === undefined || c === undefined) return 'network RTT not measured in both runs';
  // Loopback and LAN round trips jitter by a fraction of a millisecond: below 1 ms of change it is unchanged.
  if (Math.abs(c - b) < Math.max(1, RELATIVE * b)) return `network RTT unchanged (${num(c)} ms)`;
  return `network RTT ${num(b)} → ${num(c)} ms`;
}
