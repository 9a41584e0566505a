import type { ServerView } from '../result/server-view.js';
import { serverView } from '../result/server-view.js';
import { probeNetwork } from '../server/network.js';
import { Scraper } from '../server/scraper.js';
import { metricsTarget } from '../server/target.js';
import type { NetworkSection } from '../server/types.js';
import type { WindowBounds } from '../server/window.js';
import type { ResolvedSpec } from '../spec/types.js';
import { isLoopbackTarget } from '../spec/url.js';

/** Probes of each kind before the warmup: enough for a p50, and p99 is the slowest of them. */
export const NETWORK_PROBES = 10;
/**
 * Probes on a loopback target, where the round trip is a tenth of a millisecond and half its
 * p10 is the delivery floor under every timestamp error figure (src/result/timestamp-error.ts,
 * deliveryFloorMs): a 10th percentile of 30 is the third fastest, where one of 10 would be the
 * fastest alone. Thirty loopback connections take a few milliseconds.
 */
export const LOOPBACK_NETWORK_PROBES = 30;
/**
 * Probes sent before those, not counted, on a loopback target. A server just started handles
 * its first few dozen requests slower while its runtime compiles the path (a Node server on the
 * AMD EPYC machine: 0.20–0.25 ms round trips for the first twenty, 0.12–0.14 ms after): a cost
 * of the server's start, not of the delivery, and gone by the window. Each is a loopback
 * connection, a fraction of a millisecond, and they stop after NETWORK_WARMUP_BUDGET_MS (a
 * /models that slow is not warming up; a tunnel to another host, say); on another host, where
 * the floor is 0, none are sent.
 */
export const NETWORK_WARMUP_PROBES = 20;
const NETWORK_WARMUP_BUDGET_MS = 200;
const PROBE_TIMEOUT_MS = 5000;

/** The server view of one run: the network probed before the warmup and the scraper running through it. */
export interface ServerWatch {
  network: NetworkSection;
  scraper: Scraper | null;
  /** Stops the scraper and returns the result's sections over the window. Idempotent. */
  finish(b: WindowBounds): Promise<ServerView>;
  stop(): Promise<void>;
}

/**
 * Probes the network, then starts the one scraper of the run (on this, the main thread; with
 * generator threads too). `headers` are the target's (with its key): target.ts sends them to
 * the metrics host only when it is the target's or one the spec allows.
 */
export async function startServerWatch(resolved: ResolvedSpec, baseUrl: string, headers: Record<string, string>): Promise<ServerWatch> {
  const loopback = isLoopbackTarget(resolved.spec.target.url);
  const network = await probeNetwork({
    baseUrl,
    headers,
    count: loopback ? LOOPBACK_NETWORK_PROBES : NETWORK_PROBES,
    warmup: loopback ? NETWORK_WARMUP_PROBES : 0,
    warmupBudgetMs: NETWORK_WARMUP_BUDGET_MS,
    timeoutMs: PROBE_TIMEOUT_MS,
  });
  const t = resolved.spec.target;
  const where = metricsTarget(
    baseUrl,
    { metricsUrl: t.url === 'sim' && t.metrics_url !== false ? undefined : t.metrics_url, allowedHosts: t.metrics_allowed_hosts },
    headers,
  );
  const scraper = where
    ? new Scraper({ url: where.url, headers: where.headers, intervalMs: resolved.metricsIntervalMs, model: t.model })
    : null;
  scraper?.start();
  return {
    network,
    scraper,
    stop: async () => scraper?.stop(),
    async finish(b) {
      await scraper?.stop();
      return serverView(scraper?.section(b), network);
    },
  };
}
