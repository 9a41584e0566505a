import { durationField } from './duration-field.js';
import { SpecIssue } from './error.js';
import { show } from './messages.js';
import type { ResolvedAbort, ResolvedPattern, Spec } from './types.js';

/** Ramps are summarized in this many equal slices unless the spec says `slices`. */
export const DEFAULT_RAMP_SLICES = 10;

const seconds = (ms: number) => `${Math.round(ms) / 1000}s`;

/**
 * load.ramp_up, load.pattern and load.soak with their durations in ms, checked against the
 * steady window they live in. The schema has checked each key alone; these checks need several.
 */
export function resolvePattern(
  load: Spec['load'],
  steadyMs: number,
): { rampUpMs?: number; pattern?: ResolvedPattern; abort?: ResolvedAbort } {
  const out: { rampUpMs?: number; pattern?: ResolvedPattern; abort?: ResolvedAbort } = {};
  const closed = load.mode === 'closed';
  for (const key of ['ramp_up', 'pattern', 'soak'] as const) {
    if (closed && load[key] !== undefined)
      throw new SpecIssue(
        ['load', key],
        'is given with mode: closed; expected mode: open (a rate curve needs an open-loop arrival schedule)',
      );
  }
  if (load.ramp_up !== undefined) out.rampUpMs = durationField(['load', 'ramp_up'], load.ramp_up, true);
  if (load.pattern && load.soak)
    throw new SpecIssue(
      ['load', 'soak'],
      'is given with load.pattern; expected one or the other (a soak is a steady rate judged in segments)',
    );
  if (load.soak) out.pattern = { kind: 'soak', segments: load.soak.segments };
  const p = load.pattern;
  const at = (key: string) => ['load', 'pattern', key];
  const window = `the steady window (load.steady ${seconds(steadyMs)})`;
  if (p?.kind === 'spike') {
    const atMs = durationField(at('at'), p.at, true);
    const forMs = durationField(at('for'), p.for, false);
    if (atMs === 0)
      throw new SpecIssue(at('at'), `is ${show(p.at)}; expected a time > 0 into the window, so the pre-spike level is measured`);
    if (atMs + forMs > steadyMs)
      throw new SpecIssue(
        at('for'),
        `ends the spike at ${seconds(atMs + forMs)} (at + for), past ${window}; expected at + for ≤ load.steady`,
      );
    out.pattern = { kind: 'spike', multiplier: p.multiplier, atMs, forMs };
  } else if (p?.kind === 'ramp') {
    const overMs = durationField(at('over'), p.over, false);
    if (overMs > steadyMs) throw new SpecIssue(at('over'), `is ${seconds(overMs)}, longer than ${window}; expected over ≤ load.steady`);
    if (p.from === 0 && p.to === 0) throw new SpecIssue(at('to'), 'is 0 like from, so the ramp sends nothing; expected a rate > 0');
    out.pattern = { kind: 'ramp', from: p.from, to: p.to, overMs, slices: p.slices ?? DEFAULT_RAMP_SLICES };
  } else if (p?.kind === 'steps') {
    const eachMs = durationField(at('each'), p.each, false);
    const total = eachMs * p.rates.length;
    if (total > steadyMs)
      throw new SpecIssue(at('rates'), `lasts ${seconds(total)} (${p.rates.length} × each), longer than ${window}; expected ≤ load.steady`);
    if (!p.rates.some((r) => r > 0)) throw new SpecIssue(at('rates'), 'are all 0; expected at least one rate > 0');
    out.pattern = { kind: 'steps', rates: p.rates, eachMs };
  }
  const a = load.abort;
  if (a) {
    if (a.max_error_rate === undefined && !a.over_saturation)
      throw new SpecIssue(['load', 'abort'], 'has neither max_error_rate nor over_saturation: true; expected at least one of them');
    out.abort = {
      maxErrorRate: a.max_error_rate ?? null,
      windowMs: durationField(['load', 'abort', 'window'], a.window, false),
      overSaturation: a.over_saturation,
      fail: a.fail,
    };
  }
  return out;
}

/**
 * The pattern of one of n shards (or the sum of shards' patterns, with factor n and k = 1/n):
 * its own rates scaled; a spike's multiplier applies to the already divided load.rate.
 */
export function scalePatternRates<P extends { kind: string; from?: number; to?: number; rates?: number[] }>(p: P, factor: number): P {
  const round = (x: number) => Math.round(x * factor * 1e6) / 1e6;
  if (p.kind === 'ramp') return { ...p, from: round(p.from!), to: round(p.to!) };
  if (p.kind === 'steps') return { ...p, rates: p.rates!.map(round) };
  return p;
}
