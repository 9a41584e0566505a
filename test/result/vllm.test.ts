import { toVllmFormat } from '../../src/result/vllm.js';
import { synthesize } from './synthetic.js';

test('--format vllm uses the field names of vllm bench serve, with values from our histograms', () => {
  const r = synthesize({ n: 800, tokens: 20 });
  const v = toVllmFormat(r);
  for (const key of [
    'completed',
    'duration',
    'request_throughput',
    'output_throughput',
    'total_token_throughput',
    'request_goodput',
    'mean_ttft_ms',
    'median_ttft_ms',
    'std_ttft_ms',
    'p99_ttft_ms',
    'mean_tpot_ms',
    'p99_itl_ms',
    'mean_e2el_ms',
  ]) {
    expect(v).toHaveProperty(key);
  }
  expect(v.completed).toBe(r.requests.window.by_class.ok);
  expect(v.output_throughput).toBe(r.throughput.output_tokens_per_s);
  // Medians and p99s come from the same histograms as our summaries (µs rounding aside).
  expect(v.median_ttft_ms as number).toBeCloseTo(r.metrics.ttft_ms!.p50, 2);
  expect(v.p99_tpot_ms as number).toBeCloseTo(r.metrics.tpot_ms!.p99, 2);
  expect(v.mean_e2el_ms as number).toBeCloseTo(r.metrics.e2e_ms!.mean, 1);
  expect(v.std_ttft_ms as number).toBeGreaterThan(0);
  expect(v.total_output_tokens).toBe(800 * 20);
});
