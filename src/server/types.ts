import type { EngineName } from './engines.js';

/** A gauge over the window: the mean and peak of its scrapes, and the last one. */
export interface GaugeSummary {
  mean: number;
  max: number;
  last: number;
}

/** Quantiles of a server histogram over the window, ms. */
export interface ServerQuantiles {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  /**
   * The window's buckets as the engine reports them (seconds): the finite upper bounds `le`,
   * the cumulative `counts` (one per bound, then the +Inf total) and the `sum`. Kept so that
   * replicates merge exactly (percentiles are never averaged); absent in older results.
   */
  buckets?: { le: number[]; counts: number[]; sum: number };
}

/**
 * The server's own view of the window, from its Prometheus /metrics (src/server). One scraper
 * per run, on the main thread, so a merge keeps the one input that has it and never adds.
 */
export interface ServerSection {
  /** The URL scraped (no credentials are ever in it). */
  url: string;
  /** Whose metric names were read (src/server/engines.ts); null when none was recognised. */
  engine: EngineName | null;
  /** False when /metrics could not be used; `note` says why. Every figure is then absent or null. */
  available: boolean;
  note?: string;
  /** Scrapes that fell inside the window, and the interval asked for. */
  scrapes: number;
  interval_s: number;
  summary: {
    running?: GaugeSummary;
    waiting?: GaugeSummary;
    /** Share 0…1 of the KV cache in use. */
    kv_cache_usage?: GaugeSummary;
    /** Sequences per decode step, where the engine reports it (llama.cpp). */
    batch_size?: GaugeSummary;
    /** Prefix-cache hits / queries over the window (or the engine's own hit-rate gauge, mean); null when not exposed or no queries. */
    prefix_cache_hit_rate: number | null;
    /** Preemptions in the window, and per second; null when not exposed. */
    preemptions: number | null;
    preemptions_per_s: number | null;
  };
  /** The server's TTFT, queue time and inter-token latency over the window, from its histograms; null where it has none. */
  ttft_ms: ServerQuantiles | null;
  queue_time_ms: ServerQuantiles | null;
  itl_ms: ServerQuantiles | null;
  /** Gauges per interval of the client's timeseries (same interval and start); null where no scrape fell in it. */
  timeseries: { interval_s: number; running: (number | null)[]; waiting: (number | null)[]; kv_cache_usage: (number | null)[] };
}

export interface TwoQuantiles {
  p50: number;
  p99: number;
}

/**
 * The network before the warmup (src/server/network.ts): TCP connect time, the TLS handshake
 * over HTTPS, and the round trip of a tiny request (GET /models) on the open connection, to the
 * first byte of its answer. The round trip holds the server's time to answer that request
 * too, which for /models is close to nothing. `probes`: how many succeeded.
 */
export interface NetworkSection {
  probes: number;
  connect_ms: TwoQuantiles | null;
  tls_ms?: TwoQuantiles | null;
  rtt_ms: TwoQuantiles | null;
  note?: string;
}
