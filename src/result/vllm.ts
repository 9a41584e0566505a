import { METRICS } from '../metrics/definitions.js';
import { decodeHistogram } from '../metrics/histogram.js';
import type { Result } from './types.js';

/**
 * The result under the field names of `vllm bench serve --save-result`, so dashboards built
 * for it can read ours. Per-request arrays (ttfts, itls, …) are omitted: we keep histograms.
 * Differences worth knowing: our TTFT/E2E start at the intended send time, theirs at the actual one.
 */
export function toVllmFormat(r: Result): Record<string, number | string | null> {
  const out: Record<string, number | string | null> = {
    backend: 'openai-chat',
    model_id: r.target.model,
    date: r.created_at,
    request_rate: r.load.mode === 'open' ? r.load.offered_rate_per_s : 'inf',
    burstiness: r.load.burstiness,
    max_concurrency: r.load.concurrency,
    duration: r.load.window_s,
    completed: r.requests.window.by_class.ok,
    total_input_tokens: Math.round((r.workload.input_tokens.delivered?.mean ?? 0) * (r.workload.input_tokens.delivered?.count ?? 0)),
    total_output_tokens: Math.round((r.workload.output_tokens.delivered?.mean ?? 0) * (r.workload.output_tokens.delivered?.count ?? 0)),
    request_throughput: r.throughput.requests_per_s,
    request_goodput: r.goodput.rate_per_s,
    output_throughput: r.throughput.output_tokens_per_s,
    total_token_throughput: r.throughput.total_tokens_per_s,
  };
  for (const { peers, histogram: histName } of METRICS) {
    const vllmName = peers.vllm;
    if (vllmName === null) continue;
    const encoded = r.histograms[histName];
    const h = encoded ? decodeHistogram(encoded) : null;
    const empty = !h || h.totalCount === 0;
    const ms = (us: number) => (empty ? null : Math.round(us) / 1000);
    out[`mean_${vllmName}_ms`] = ms(h?.mean ?? 0);
    out[`median_${vllmName}_ms`] = ms(h?.getValueAtPercentile(50) ?? 0);
    out[`std_${vllmName}_ms`] = ms(h?.stdDeviation ?? 0);
    for (const p of [90, 95, 99]) out[`p${p}_${vllmName}_ms`] = ms(h?.getValueAtPercentile(p) ?? 0);
  }
  return out;
}
