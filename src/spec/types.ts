/** A benchmark spec as written in YAML, after the schema has filled defaults. Durations stay strings here. */
export type LengthDist =
  | { dist: 'fixed'; value: number }
  | { dist: 'uniform'; min: number; max: number }
  | { dist: 'normal'; mean: number; stddev: number; min?: number; max?: number };

export interface Spec {
  name: string;
  target: {
    /** A base URL in the OpenAI SDKs' sense (`http://host:8000/v1`), or `sim` for the embedded simulator. */
    url: string;
    api: 'chat' | 'completions';
    model: string;
    headers: Record<string, string>;
    /** Name of the environment variable that holds the API key; the key itself never appears in a spec. */
    api_key_env?: string;
    request_timeout: string;
    ready_timeout: string;
    /** Simulator settings, used when url is `sim` (validated by src/sim). */
    sim: Record<string, unknown>;
  };
  workload: {
    seed: number;
    input_tokens: LengthDist;
    output_tokens: LengthDist;
    ignore_eos: boolean;
  };
  load: {
    mode: 'open' | 'closed';
    arrival: 'poisson' | 'constant' | 'gamma';
    /** Gamma shape: 1 is Poisson, < 1 burstier, > 1 smoother (vLLM's --burstiness). */
    burstiness: number;
    /** Requests per second (open loop). */
    rate: number;
    /** Fixed number of in-flight requests (closed loop). */
    concurrency: number;
    warmup: string;
    steady: string;
    cooldown: string;
    /** Open-loop safety cap; arrivals beyond it are reported as dropped. */
    max_in_flight: number;
  };
  slo: { ttft_ms: number; tpot_ms: number; e2e_ms: number };
}

/** What the engine runs: the spec with durations in milliseconds and the secret resolved. */
export interface ResolvedSpec {
  spec: Spec;
  /** sha256 of the canonical JSON of `spec` (secrets are never in it). */
  hash: string;
  /** Absent when the spec names no api_key_env. Never logged or written. */
  apiKey?: string;
  /** target.headers with `${VAR}` references filled from the environment. Never logged or written. */
  headers: Record<string, string>;
  requestTimeoutMs: number;
  readyTimeoutMs: number;
  warmupMs: number;
  steadyMs: number;
  cooldownMs: number;
}
