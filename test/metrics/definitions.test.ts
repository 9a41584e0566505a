import { resolveGate } from '../../src/spec/gate-schema.js';
import { latencyTarget, sortedLatencyKeys } from '../../src/gate/targets.js';
import { DEFINITIONS, GATE_METRICS, LATENCY_TARGETS, METRICS } from '../../src/metrics/definitions.js';
import { decodeHistogram } from '../../src/metrics/histogram.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { toVllmFormat } from '../../src/result/vllm.js';
import { synthesize } from '../result/synthetic.js';

describe('the metric table', () => {
  test('every row names a histogram the recorder keeps, and a result summarizes each row under its key', () => {
    const rec = new Recorder({ runId: 't', runStart: 0, windowFromMs: 0, windowToMs: 1, slo: { ttft_ms: 1, tpot_ms: 1, e2e_ms: 1 } });
    const r = synthesize({ n: 50 });
    for (const m of METRICS) {
      expect(Object.keys(rec.h)).toContain(m.histogram);
      expect(r.metrics[m.key]!.count).toBe(decodeHistogram(r.histograms[m.histogram]).totalCount);
      expect(DEFINITIONS[m.key]).toBe(m.definition);
    }
    expect(Object.keys(r.metrics)).toEqual(METRICS.map((m) => m.key));
  });

  test('gate keys and labels come from the table, with no parsing of the key', () => {
    expect(LATENCY_TARGETS).toHaveLength(GATE_METRICS.length * 5);
    expect(latencyTarget('ttft_from_send_p999')).toEqual({
      key: 'ttft_from_send_p999',
      gate: 'ttft_from_send',
      metric: 'ttft_from_send_ms',
      histogram: 'ttftFromSend',
      pct: 'p999',
      p: 99.9,
      label: 'TTFT from send p99.9',
    });
    expect(latencyTarget('normalized_latency_p50').label).toBe('E2E per token p50');
    expect(sortedLatencyKeys(['e2e_p95', 'ttft_p99', 'ttft_p50', 'tpot_p95'])).toEqual(['ttft_p50', 'ttft_p99', 'tpot_p95', 'e2e_p95']);
  });

  test("the gate's schema accepts exactly the table's keys", () => {
    for (const { key } of LATENCY_TARGETS)
      expect(() => resolveGate({ latency: { [key]: { max_increase_pct: 1, max_increase_ms: 1 } } })).not.toThrow();
    // The generator's own lateness is a validity check, not a rule.
    expect(() => resolveGate({ latency: { schedule_lag_p99: { max_increase_pct: 1, max_increase_ms: 1 } } })).toThrow(/latency/);
  });

  test('--format vllm writes the rows that have a vLLM name', () => {
    const out = toVllmFormat(synthesize({ n: 50 }));
    for (const m of METRICS) if (m.peers.vllm) expect(out[`p99_${m.peers.vllm}_ms`]).toEqual(expect.any(Number));
    expect(Object.keys(out).filter((k) => k.startsWith('mean_'))).toEqual(['mean_ttft_ms', 'mean_tpot_ms', 'mean_itl_ms', 'mean_e2el_ms']);
  });
});
