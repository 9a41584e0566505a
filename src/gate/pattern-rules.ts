import { decodeHistogram } from '../metrics/histogram.js';
import { segmentDrift } from '../metrics/rise.js';
import type { Result } from '../result/types.js';
import { appendAll, num } from '../numbers.js';
import { outcome } from './outcome.js';
import { latencyTarget } from './targets.js';
import { FIXED_FLOOR_MS, type GateSpec, type LatencyKey } from '../spec/gate-schema.js';
import type { RuleOutcome, Verdict } from './types.js';

/*
 * Gate rules on a time-varying load, judged on the current run alone (like SLOs):
 *
 *   gate.spike.max_recovery_s — pattern.spike.recovery_s must be ≤ it; a spike the server did
 *     not recover from within the window fails; a run without a spike pattern is inconclusive.
 *   gate.soak.max_drift_pct — no latency percentile the gate's latency rules name may drift
 *     between the first and last soak segment by more than max(pct × first, the rule's ms)
 *     beyond noise: the same test as the result's pattern.soak.drift (metrics/rise.ts
 *     segmentDrift, the latency rules' percentile-rise test), re-run at this pct. One outcome per metric.
 */
export function judgePatternRules(gate: GateSpec, current: Result): RuleOutcome[] {
  const out: RuleOutcome[] = [];
  if (gate.spike?.enabled) out.push(judgeRecovery(gate.spike, current));
  if (gate.soak?.enabled) appendAll(out, judgeSoak(gate, gate.soak, current));
  return out;
}

function judgeRecovery(rule: NonNullable<GateSpec['spike']>, r: Result): RuleOutcome {
  const draft = {
    id: 'spike.recovery_s',
    kind: 'slo' as const,
    metric: 'Spike recovery',
    limit: `≤ ${rule.max_recovery_s} s`,
    unit: 's' as const,
    baseline: null,
    change: null,
    threshold: rule.max_recovery_s,
    ci: null,
  };
  const spike = r.pattern?.spike;
  if (!spike)
    return outcome({ ...draft, current: null, reason: 'the run has no spike pattern (load.pattern kind: spike)' }, 'inconclusive', rule);
  if (spike.recovery_s === null)
    return outcome({ ...draft, current: null, reason: `did not recover within the window (${spike.rule})` }, 'fail', rule);
  const ok = spike.recovery_s <= rule.max_recovery_s;
  return outcome(
    {
      ...draft,
      current: spike.recovery_s,
      reason: `recovered ${num(spike.recovery_s)} s after the spike, allowed ${rule.max_recovery_s} s`,
    },
    ok ? 'pass' : 'fail',
    rule,
  );
}

function judgeSoak(gate: GateSpec, rule: NonNullable<GateSpec['soak']>, r: Result): RuleOutcome[] {
  const soak = r.pattern?.kind === 'soak' ? r.pattern : undefined;
  if (!soak) {
    const none = { kind: 'slo' as const, unit: 'ms' as const, baseline: null, current: null, change: null, threshold: null, ci: null };
    return [
      outcome(
        { ...none, id: 'soak.drift', metric: 'Soak drift', limit: `≤ ${rule.max_drift_pct} %`, reason: 'the run has no soak (load.soak)' },
        'inconclusive',
        rule,
      ),
    ];
  }
  const first = soak.histograms.phases[0];
  const last = soak.histograms.phases[soak.histograms.phases.length - 1];
  return Object.keys(soak.soak?.drift ?? {}).map((key) => {
    const t = latencyTarget(key as LatencyKey);
    const metric = t.histogram as 'ttft' | 'tpot' | 'e2e';
    const latency = gate.latency[key as LatencyKey]!;
    const d = segmentDrift({
      first: decodeHistogram(first[metric]),
      last: decodeHistogram(last[metric]),
      p: t.p,
      pct: rule.max_drift_pct,
      floorMs: latency.max_increase_ms ?? FIXED_FLOOR_MS[key as LatencyKey] ?? 0,
      minTail: gate.min_tail_samples,
      confidence: gate.confidence,
      iterations: gate.bootstrap_iterations,
      id: key,
    });
    return outcome(
      {
        id: `soak.drift.${key}`,
        kind: 'slo',
        metric: `${t.label} drift, first → last segment`,
        limit: `may rise ≤ ${rule.max_drift_pct} % or ${latency.max_increase_ms ?? FIXED_FLOOR_MS[key as LatencyKey] ?? 0} ms, whichever is larger, beyond noise`,
        unit: 'ms',
        baseline: d.first,
        current: d.last,
        change: d.change,
        threshold: d.bound,
        ci: d.ci,
        reason: d.reason,
      },
      d.verdict === 'drift' ? 'fail' : d.verdict === 'none' ? 'pass' : 'inconclusive',
      rule,
    );
  });
}

/**
 * A run stopped by load.abort measured less than it was asked to: its verdict is inconclusive
 * whatever the rules say — or fail when the spec says an abort fails (load.abort.fail).
 */
export function abortVerdict(current: Result, decided: { verdict: Verdict; reasons: string[] }): { verdict: Verdict; reasons: string[] } {
  const a = current.abort;
  if (!a) return decided;
  const line = `the run was aborted at ${a.at_s} s (${a.reason === 'error_rate' ? 'error rate' : 'over-saturation'}): ${a.detail}`;
  return { verdict: a.fail ? 'fail' : 'inconclusive', reasons: [line, ...decided.reasons] };
}
