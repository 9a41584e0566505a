import { Ajv } from 'ajv';
import { defaultGate, gateOf, gateSchema, resolveGate } from '../../src/spec/gate-schema.js';
import { specSchema } from '../../src/spec/schema.js';

describe('gate section of the spec', () => {
  test('the defaults are the documented ones (latency floors: what the runs resolve, src/gate/floors.ts)', () => {
    expect(defaultGate()).toEqual({
      latency: {
        ttft_p95: { max_increase_pct: 10, warn_only: false, enabled: true },
        tpot_p50: { max_increase_pct: 10, warn_only: false, enabled: true },
        tpot_p95: { max_increase_pct: 10, warn_only: false, enabled: true },
        itl_p99: { max_increase_pct: 15, warn_only: false, enabled: true },
        e2e_p95: { max_increase_pct: 10, warn_only: false, enabled: true },
      },
      throughput: { output_tokens_per_s: { max_decrease_pct: 5, warn_only: false, enabled: true } },
      error_rate: { max_increase_pp: 1, warn_only: false, enabled: true },
      slo: {
        ttft_p95: { max_ms: 500, warn_only: false, enabled: true },
        http_5xx_rate: { max: 0.01, warn_only: false, enabled: true },
        http_429_rate: { max: 0.05, warn_only: false, enabled: true },
        goodput_fraction: { min: 0.99, warn_only: false, enabled: true },
      },
      confidence: 0.95,
      bootstrap_iterations: 1000,
      min_tail_samples: 10,
      tolerance_pct: 10,
      // Explicit overrides only: the run's own checks fill result/validity.ts's defaults.
      validity: {},
      max_timestamp_error_share: 0.25,
      max_cv: 0.1,
      noise: { segments: true, between_run: true, assumed_cv: 0.1 },
    });
  });

  test('plugs into the spec schema under strict ajv and fills its defaults there', () => {
    const withGate = { ...specSchema, properties: { ...specSchema.properties, gate: gateSchema } };
    const validate = new Ajv({ allErrors: true, useDefaults: true, verbose: true, strict: true }).compile(withGate);
    const spec: Record<string, unknown> = { target: { url: 'sim' }, gate: { latency: { ttft_p95: { max_increase_pct: 5 } } } };
    expect(validate(spec)).toBe(true);
    const gate = gateOf(spec);
    expect(gate.latency.ttft_p95).toEqual({ max_increase_pct: 5, warn_only: false, enabled: true });
    expect(gate.latency.itl_p99!.max_increase_pct).toBe(15);
    expect(gate.slo.ttft_p95!.max_ms).toBe(500);
    const bare: Record<string, unknown> = { target: { url: 'sim' } };
    expect(validate(bare)).toBe(true);
    expect(gateOf(bare as { slo: { ttft_ms: number } })).toEqual(defaultGate());
  });

  test('custom percentile rules need max_increase_pct (the floor defaults to what the runs resolve); flags default', () => {
    const gate = resolveGate({
      latency: { e2e_p99: { max_increase_pct: 5, max_increase_ms: 100 } },
      slo: { e2e_p99: { max_ms: 2000, warn_only: true } },
    });
    expect(gate.latency.e2e_p99).toEqual({ max_increase_pct: 5, max_increase_ms: 100, warn_only: false, enabled: true });
    expect(gate.slo.e2e_p99).toEqual({ max_ms: 2000, warn_only: true, enabled: true });
    expect(resolveGate({ latency: { e2e_p99: { max_increase_pct: 5 } } }).latency.e2e_p99).toEqual({
      max_increase_pct: 5,
      warn_only: false,
      enabled: true,
    });
    expect(() => resolveGate({ latency: { e2e_p99: { max_increase_ms: 5 } } })).toThrow(
      "gate.latency.e2e_p99: must have required property 'max_increase_pct'",
    );
  });

  test('unknown keys and bad values are rejected', () => {
    expect(() => resolveGate({ latency: { ttft_p96: { max_increase_pct: 5, max_increase_ms: 1 } } })).toThrow(/^gate\.latency: /);
    expect(() => resolveGate({ slo: { http_5xx_rate: { max: 2 } } })).toThrow('gate.slo.http_5xx_rate.max: must be <= 1');
    expect(() => resolveGate({ confidence: 1 })).toThrow('gate.confidence: must be < 1');
    expect(() => resolveGate({ thresholds: {} })).toThrow('gate: must NOT have additional properties');
  });
});
