import { durationField } from './duration-field.js';
import { SpecIssue } from './error.js';
import type { Spec, ThinkTime } from './types.js';

/**
 * The cross-field rules of `workload.sessions` and `workload.trace`:
 *  - a trace is the whole load's arrivals and lengths, so it takes no dataset, no sessions, no
 *    synthetic input or output lengths, no rate pattern or ramp, and only the open loop. Its
 *    arrival times win over `load.rate` and `load.arrival`, which it leaves unused (the result's
 *    plan says so); `load.warmup`, `steady` and `cooldown` still frame the window over the
 *    trace's time line.
 *  - sessions start open-loop at `load.rate` sessions per second; each needs `turns` unless a
 *    ShareGPT dataset brings the conversations.
 * Durations are checked here so a bad one is caught before the load starts.
 */
export function checkConversationsAndTraces(spec: Spec, written: Set<string>): void {
  const w = spec.workload;
  if (w.trace) checkTrace(spec, written);
  if (w.sessions) checkSessions(spec);
}

function checkTrace(spec: Spec, written: Set<string>): void {
  const w = spec.workload;
  const t = w.trace!;
  // output_tokens keeps its schema default (the Spec type needs one), so only a different value counts as written.
  const outputDefault = w.output_tokens.dist === 'fixed' && w.output_tokens.value === 128;
  for (const key of ['dataset', 'sessions', 'input_tokens', 'output_tokens'] as const) {
    if (written.has(key) && !(key === 'output_tokens' && outputDefault))
      throw new SpecIssue(
        ['workload', key],
        'is given with trace; expected one or the other (a trace brings its own arrivals and lengths)',
      );
  }
  if (spec.load.mode !== 'open')
    throw new SpecIssue(['load', 'mode'], 'is closed with workload.trace; expected open (the trace times the arrivals)');
  for (const key of ['pattern', 'ramp_up', 'soak'] as const) {
    if (spec.load[key] !== undefined)
      throw new SpecIssue(['load', key], 'is given with workload.trace; expected none (the trace is the load pattern)');
  }
  checkDuration(['workload', 'trace', 'start'], t.start, true);
  if (t.duration !== undefined) checkDuration(['workload', 'trace', 'duration'], t.duration, false);
  delete w.input_tokens;
}

function checkSessions(spec: Spec): void {
  const w = spec.workload;
  const s = w.sessions!;
  if (spec.load.mode !== 'open')
    throw new SpecIssue(['load', 'mode'], 'is closed with workload.sessions; expected open (sessions start at load.rate per second)');
  if (w.dataset && w.dataset.format !== 'sharegpt')
    throw new SpecIssue(
      ['workload', 'dataset', 'format'],
      'is jsonl with workload.sessions; expected sharegpt (its conversations give the turns)',
    );
  if (!w.dataset && !s.turns)
    throw new SpecIssue(['workload', 'sessions', 'turns'], 'is missing; expected a number of turns such as 4, or a length distribution');
  for (const [key, text] of thinkDurations(s.think_time)) checkDuration(['workload', 'sessions', 'think_time', ...key], text, true);
}

function thinkDurations(t: ThinkTime): [string[], string][] {
  if (typeof t === 'string') return [[[], t]];
  return t.dist === 'uniform'
    ? [
        [['min'], t.min],
        [['max'], t.max],
      ]
    : [[['mean'], t.mean]];
}

function checkDuration(path: string[], text: string, zeroAllowed: boolean): void {
  durationField(path, text, zeroAllowed);
}
