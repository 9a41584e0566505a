import { Count, Described, Nullable, OneOf, Type, type Static } from '../json-schema.js';
import { ENGINE_NAMES } from './engines.js';

/** A gauge over the window: the mean and peak of its scrapes, and the last one. */
export const GaugeSummarySchema = Type.Object({ mean: Type.Number(), max: Type.Number(), last: Type.Number() });
export type GaugeSummary = Static<typeof GaugeSummarySchema>;

/** Quantiles of a server histogram over the window, ms. */
export const ServerQuantilesSchema = Type.Object({
  count: Type.Number(),
  mean: Type.Number(),
  p50: Type.Number(),
  p95: Type.Number(),
  p99: Type.Number(),
  buckets: Described(
    "The window's buckets as the engine reports them (seconds): the finite upper bounds `le`, the cumulative `counts` (one per bound, then the +Inf total) and the `sum`. Kept so that replicates merge exactly (percentiles are never averaged); absent in older results.",
    Type.Optional(Type.Object({ le: Type.Array(Type.Number()), counts: Type.Array(Type.Number()), sum: Type.Number() })),
  ),
});
export type ServerQuantiles = Static<typeof ServerQuantilesSchema>;

const gaugeSeries = Type.Array(Nullable(Type.Number()));

/**
 * The server's own view of the window, from its Prometheus /metrics (src/server). One scraper
 * per run, on the main thread, so a merge keeps the one input that has it and never adds.
 */
export const ServerSectionSchema = Type.Object({
  url: Described('The URL scraped (no credentials are ever in it).', Type.String()),
  engine: Described('Whose metric names were read (src/server/engines.ts); null when none was recognised.', Nullable(OneOf(ENGINE_NAMES))),
  available: Described('False when /metrics could not be used; `note` says why. Every figure is then absent or null.', Type.Boolean()),
  note: Type.Optional(Type.String()),
  scrapes: Described('Scrapes that fell inside the window, and the interval asked for.', Count()),
  interval_s: Type.Number(),
  summary: Type.Object({
    running: Type.Optional(GaugeSummarySchema),
    waiting: Type.Optional(GaugeSummarySchema),
    kv_cache_usage: Described('Share 0…1 of the KV cache in use.', Type.Optional(GaugeSummarySchema)),
    batch_size: Described('Sequences per decode step, where the engine reports it (llama.cpp).', Type.Optional(GaugeSummarySchema)),
    prefix_cache_hit_rate: Described(
      "Prefix-cache hits / queries over the window (or the engine's own hit-rate gauge, mean); null when not exposed or no queries.",
      Nullable(Type.Number()),
    ),
    preemptions: Described('Preemptions in the window, and per second; null when not exposed.', Nullable(Type.Number())),
    preemptions_per_s: Nullable(Type.Number()),
  }),
  ttft_ms: Described(
    "The server's TTFT, queue time and inter-token latency over the window, from its histograms; null where it has none.",
    Nullable(ServerQuantilesSchema),
  ),
  queue_time_ms: Nullable(ServerQuantilesSchema),
  itl_ms: Nullable(ServerQuantilesSchema),
  timeseries: Described(
    "Gauges per interval of the client's timeseries (same interval and start); null where no scrape fell in it.",
    Type.Object({ interval_s: Type.Number(), running: gaugeSeries, waiting: gaugeSeries, kv_cache_usage: gaugeSeries }),
  ),
});
export type ServerSection = Static<typeof ServerSectionSchema>;

export const TwoQuantilesSchema = Type.Object({ p50: Type.Number(), p99: Type.Number() });
export type TwoQuantiles = Static<typeof TwoQuantilesSchema>;

/** The request round trip's quantiles: p10 as well, the one the delivery floor is taken from. */
export const RoundTripSchema = Type.Object({
  p10: Described(
    'The 10th percentile: on a loopback target, half of it is the delivery floor of the timestamp error (generator.timestamp_error_ms.delivery_ms). Absent in older results.',
    Type.Optional(Type.Number()),
  ),
  p50: Type.Number(),
  p99: Type.Number(),
});
export type RoundTrip = Static<typeof RoundTripSchema>;

/**
 * The network before the warmup (src/server/network.ts): TCP connect time, the TLS handshake
 * over HTTPS, and the round trip of a tiny request (GET /models) on the open connection, to the
 * first byte of its answer. The round trip holds the server's time to answer that request
 * too, which for /models is close to nothing. `probes`: how many succeeded.
 */
export const NetworkSectionSchema = Type.Object({
  probes: Count(),
  warmup_probes: Described(
    "Probes sent before those and not counted, while a just-started server's handling warms up (loopback targets). Absent when none were sent.",
    Type.Optional(Count()),
  ),
  connect_ms: Nullable(TwoQuantilesSchema),
  tls_ms: Type.Optional(Nullable(TwoQuantilesSchema)),
  rtt_ms: Nullable(RoundTripSchema),
  note: Type.Optional(Type.String()),
});
export type NetworkSection = Static<typeof NetworkSectionSchema>;
