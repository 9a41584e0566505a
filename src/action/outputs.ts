import type { HistoryOutcome } from './history.js';
import { resolve } from 'node:path';
import type { Result } from '../result/types.js';

/** Key figures of the run as step outputs; a metric without samples is an empty string, never 0. */
export function resultOutputs(r: Result): Record<string, string | number> {
  const figures: Record<string, number | null | undefined> = {
    'ttft-p50-ms': r.metrics.ttft_ms?.p50,
    'ttft-p95-ms': r.metrics.ttft_ms?.p95,
    'tpot-p50-ms': r.metrics.tpot_ms?.p50,
    'tpot-p95-ms': r.metrics.tpot_ms?.p95,
    'http-5xx-rate': r.requests.window.scheduled > 0 ? r.rates.http_5xx : null,
    'goodput-fraction': r.goodput.fraction,
    'output-tokens-per-s': r.throughput.output_tokens_per_s,
  };
  return Object.fromEntries(Object.entries(figures).map(([name, value]) => [name, value ?? '']));
}

/** The history's outputs: its change points as JSON (empty without a history), the local history and page. */
export function historyOutputs(h: HistoryOutcome | undefined): Record<string, string> {
  if (!h) return { 'change-points': '' };
  return {
    'change-points': JSON.stringify(h.check.change_points),
    'history-verdict': h.check.verdict,
    'history-path': resolve(h.localPath),
    'history-page-path': resolve(h.pagePath),
  };
}
