import { num } from '../numbers.js';
import type { Result } from '../result/types.js';
import type { GaugeSummary, ServerQuantiles } from '../server/types.js';

/*
 * The server view and the network probe as display strings, shared by the console, markdown
 * and HTML reports. Unescaped: the URL and the notes come from the spec and the server, so
 * each renderer escapes them for its own format.
 */

const pct = (v: number) => `${num(v * 100)} %`;
const gauge = (label: string, g: GaugeSummary | undefined, show: (v: number) => string = num) =>
  g ? `${label} mean ${show(g.mean)} (peak ${show(g.max)})` : null;

/** What the engine's /metrics said over the window, in one line; null when the run has no server view. */
export function serverText(r: Result): string | null {
  const s = r.server;
  if (!s) return null;
  if (!s.available) return `no server view: ${s.note ?? 'unavailable'}`;
  const m = s.summary;
  const parts = [
    gauge('running', m.running),
    gauge('waiting', m.waiting),
    gauge('KV cache', m.kv_cache_usage, pct),
    gauge('batch', m.batch_size),
    m.prefix_cache_hit_rate !== null ? `prefix-cache hit rate ${pct(m.prefix_cache_hit_rate)}` : null,
    m.preemptions !== null ? `preemptions ${m.preemptions}` : null,
  ].filter((x): x is string => x !== null);
  return `${s.engine ?? 'unknown engine'} ${s.url}, ${s.scrapes} scrapes in the window: ${parts.join(' · ')}${s.note ? ` (${s.note})` : ''}`;
}

const three = (q: { p50: number; p95: number; p99: number }) => `${num(q.p50)} / ${num(q.p95)} / ${num(q.p99)} ms`;

/** The client's TTFT beside the server's own (from its histogram), and the server's queue time; [] without them. */
export function serverLatencyText(r: Result): string[] {
  const s = r.server;
  if (!s?.available) return [];
  const out: string[] = [];
  const client = r.metrics.ttft_ms;
  if (s.ttft_ms && client)
    out.push(`TTFT p50 / p95 / p99: client ${three(client)} · server ${three(s.ttft_ms)} — the difference is network + front end + client`);
  const q = (label: string, x: ServerQuantiles | null) => x && out.push(`${label} p50 / p95 / p99 (server): ${three(x)}`);
  q('queue time', s.queue_time_ms);
  return out;
}

/** The network probe in one line, saying which figure is which; null when not probed. */
export function networkText(r: Result): string | null {
  const n = r.network;
  if (!n) return null;
  const two = (x: { p50: number; p99: number } | null | undefined) => (x ? `p50 ${num(x.p50)} ms, p99 ${num(x.p99)} ms` : 'n/a');
  const tls = n.tls_ms !== undefined ? ` · TLS handshake ${two(n.tls_ms)}` : '';
  return `request round trip (GET /models on an open connection, to its first byte) ${two(n.rtt_ms)} — the network's share of each TTFT · TCP connect ${two(n.connect_ms)} — paid once per new connection${tls} (${n.probes} probes before the warmup${n.warmup_probes ? `, after ${n.warmup_probes} not counted` : ''})${n.note ? ` · ${n.note}` : ''}`;
}
