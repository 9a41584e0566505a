import { parseSpec } from '../../src/spec/load.js';
import type { ResolvedSpec } from '../../src/spec/types.js';
import type { Result } from '../../src/result/types.js';
import { decodeHistogram } from '../../src/metrics/histogram.js';

/** A resolved spec for a loopback target, from YAML fragments of the load and workload sections. */
export function specFor(
  baseUrl: string,
  load: string,
  extra = '',
  o: { requestTimeout?: string; readyTimeout?: string } = {},
): ResolvedSpec {
  const text = `name: test
target:
  url: ${baseUrl}
  model: test-model
  request_timeout: ${o.requestTimeout ?? '10s'}
  ready_timeout: ${o.readyTimeout ?? '5s'}
workload:
  seed: 5
  calibrate: off
  input_tokens: 16
  output_tokens: 50
load:
${load
  .trim()
  .split('\n')
  .map((l) => `  ${l}`)
  .join('\n')}
${extra}`;
  return parseSpec(text, 'test.yml', {});
}

/** Share of a result's TTFT samples at or below `ms`, read from its histogram (to 0.1 % resolution). */
export function ttftShareAtOrBelow(r: Result, ms: number): number {
  const h = decodeHistogram(r.histograms.ttft);
  let below = 0;
  for (let p = 0; p <= 100; p += 0.1) if (h.getValueAtPercentile(p) <= ms * 1000) below = p;
  return below / 100;
}
