import * as core from '@actions/core';
import type { ResolvedSpec } from '../spec/types.js';
import { ENV_REFERENCE } from '../spec/resolve.js';
import { isLoopback } from '../spec/url.js';

/*
 * target-url often comes from a preview deployment or a pull request, i.e. from input an
 * attacker may shape. The API key must only ever travel to hosts the workflow author named.
 */

const masked = new Set<string>();

/** Masks a secret in every form it is sent in, before anything could log it. */
export function maskSecret(value: string | undefined): void {
  if (!value || masked.has(value)) return;
  masked.add(value);
  core.setSecret(value);
  core.setSecret(`Bearer ${value}`);
}

/** Header values filled from the environment (`${VAR}`) are credentials as far as we can tell. */
export function credentialHeaders(resolved: ResolvedSpec): string[] {
  return Object.entries(resolved.spec.target.headers)
    .filter(([, template]) => new RegExp(ENV_REFERENCE.source).test(template))
    .map(([name]) => name);
}

export function hostAllowed(host: string, allowed: string[]): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return isLoopback(h) || allowed.some((a) => (a.startsWith('*.') ? h.endsWith(a.slice(1)) : h === a));
}

/** Throws when credentials (`what`) would be sent to `url`, whose host is neither loopback nor allowed. */
export function checkCredentialTarget(url: string, allowed: string[], what: string): void {
  if (url === 'sim') return;
  const host = new URL(url).hostname;
  if (hostAllowed(host, allowed)) return;
  const list = allowed.length > 0 ? allowed.join(', ') : 'none besides loopback';
  throw new Error(
    `${what} would be sent to ${host}, which is not in allowed-hosts (${list}); add the host to allowed-hosts if it is trusted`,
  );
}

/** The host of a spec's target URL, the default allowed host. */
export function specHost(url: string): string[] {
  return url === 'sim' ? [] : [new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '')];
}
