/**
 * Where the server view is read from, and with which headers. /metrics is read from the
 * target's own host by default (its origin + /metrics). `target.metrics_url` may point
 * elsewhere only on the target's host or on a host listed in `target.metrics_allowed_hosts`
 * (checked when the spec is resolved, src/spec/resolve.ts); the target's headers and API key
 * go with it on those hosts alone, so a key never reaches a host nobody named.
 */
import { metricsHostAllowed, metricsHostMessage } from '../spec/metrics-host.js';

export interface MetricsTarget {
  url: string;
  headers: Record<string, string>;
}

export interface MetricsSettings {
  /** The spec's target.metrics_url: absent for the default, false to turn the view off. */
  metricsUrl?: string | false;
  allowedHosts?: string[];
}

/** The metrics URL and its headers, or null when the view is off. `baseUrl` is the URL the load goes to (the sim's own for "sim"). */
export function metricsTarget(baseUrl: string, s: MetricsSettings, credentials: Record<string, string>): MetricsTarget | null {
  if (s.metricsUrl === false) return null;
  const base = new URL(baseUrl);
  if (s.metricsUrl === undefined) return { url: `${base.origin}/metrics`, headers: credentials };
  const url = new URL(s.metricsUrl);
  if (!metricsHostAllowed(url, base, s.allowedHosts ?? [])) throw new Error(metricsHostMessage(url.hostname, base.hostname));
  return { url: url.href, headers: credentials };
}
