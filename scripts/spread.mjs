// How far runs of the same spec spread: the between-run CV (sample SD / mean) of the
// percentiles the default gate judges, and of the mean TPOT, the engine's speed nearly free of
// sampling noise. What gate.noise.assumed_cv stands for where nothing measured it.

/** The default latency rules' percentiles, then the mean TPOT: [label, value of a result's metrics]. */
export const SPREAD_FIGURES = [
  ['TTFT p95', (m) => m.ttft_ms.p95],
  ['TPOT p50', (m) => m.tpot_ms.p50],
  ['TPOT p95', (m) => m.tpot_ms.p95],
  ['E2E p95', (m) => m.e2e_ms.p95],
  ['mean TPOT', (m) => m.tpot_ms.mean],
];

/** Sample SD / mean. */
export function cv(xs) {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1)) / mean;
}

/** "TTFT p95 12.9 %, TPOT p50 11.2 %, …" over the runs' `metrics`. */
export const spreadText = (metrics) =>
  SPREAD_FIGURES.map(([label, of]) => `${label} ${(100 * cv(metrics.map(of))).toFixed(1)} %`).join(', ');
