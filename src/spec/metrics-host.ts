/**
 * The hosts the server view may be read from (src/server/target.ts): the target's own, or one
 * the spec lists in target.metrics_allowed_hosts (`*.example.com` matches its subdomains).
 * They receive the target's headers and API key, so no other host is ever asked.
 */
export function metricsHostAllowed(url: URL, target: URL, allowed: readonly string[]): boolean {
  const h = url.hostname.toLowerCase();
  return (
    h === target.hostname.toLowerCase() ||
    allowed.some((a) => (a.startsWith('*.') ? h.endsWith(a.slice(1).toLowerCase()) : h === a.toLowerCase()))
  );
}

export function metricsHostMessage(host: string, targetHost: string): string {
  return `is on ${host}, not the target's host ${targetHost}; expected a URL on ${targetHost}, or list ${host} in target.metrics_allowed_hosts if it may receive the target's headers and key`;
}
