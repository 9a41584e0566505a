import { appendAll, maxOf, num } from '../numbers.js';
import type { Result } from '../result/types.js';
import { escapeMarkdown as md } from './escape.js';
import { numberTable } from './format.js';

/*
 * What a multi-turn run showed by turn index (result.workload.plan.sessions), and what a trace
 * replay replayed (plan.trace), for the console and markdown. Each renderer gets one call.
 */

type Sessions = NonNullable<NonNullable<Result['workload']['plan']>['sessions']>;

const HEAD = ['Turn', 'Sent', 'OK', 'TTFT p50 ms', 'TTFT p95 ms', 'Prompt tokens', 'Reply tokens'];

function rows(s: Sessions): string[][] {
  return s.by_turn.map((t) => [
    String(t.turn + 1),
    String(t.sent),
    String(t.ok),
    t.ttft_ms ? num(t.ttft_ms.p50) : 'n/a',
    t.ttft_ms ? num(t.ttft_ms.p95) : 'n/a',
    t.prompt_tokens === null ? 'n/a' : num(t.prompt_tokens),
    t.reply_tokens === null ? 'n/a' : num(t.reply_tokens),
  ]);
}

function summary(s: Sessions): string {
  const hit = s.server_prefix_cache_hit_rate;
  return `${s.started} conversations started (load.rate counts ${s.rate_unit}): ${s.completed} completed, ${s.ended_by_failure} ended by a failed turn, ${s.cut_by_run_end} cut by the run's end · server prefix-cache hit rate ${hit === null ? 'n/a' : `${(hit * 100).toFixed(1)} %`}`;
}

function traceLine(r: Result): string | null {
  const t = r.workload.plan?.trace;
  if (!t) return null;
  return `replayed ${t.replayed} of ${t.arrivals} arrivals of ${t.file} (${t.format}, speedup ${t.speedup}, ${t.span_s} s${t.with_hash_ids ? ', shared hash-id blocks' : ''}); schedule: ${t.schedule}`;
}

export function sessionsConsole(r: Result): string[] {
  const out: string[] = [];
  const trace = traceLine(r);
  if (trace !== null) out.push(`Trace       ${trace}`);
  const s = r.workload.plan?.sessions;
  if (!s) return out;
  out.push(`Sessions    ${summary(s)}`);
  const table = [HEAD, ...rows(s)];
  const widths = HEAD.map((_, k) => maxOf(table.map((row) => row[k].length)));
  for (const row of table) out.push(`            ${row.map((c, k) => (k === 0 ? c.padEnd(widths[k]) : c.padStart(widths[k]))).join('  ')}`);
  return out;
}

export function sessionsMarkdown(r: Result): string[] {
  const out: string[] = [];
  const trace = traceLine(r);
  if (trace !== null) out.push('#### Trace replay', '', md(trace), '');
  const s = r.workload.plan?.sessions;
  if (!s) return out;
  out.push('#### Conversations by turn', '', md(summary(s)), '');
  appendAll(out, numberTable(HEAD, rows(s)));
  out.push('');
  return out;
}
