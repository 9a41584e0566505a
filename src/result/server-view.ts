/**
 * The `server` and `network` sections of a result: what the engine's /metrics said over the
 * window, and the network probed before the warmup (src/server). Both are measured once per
 * run, from the main thread, never per generator thread or shard.
 */
import type { NetworkSection, ServerSection } from '../server/types.js';
import type { Result } from './types.js';

export type ServerView = Pick<Result, 'server' | 'network'>;

/** The sections as a result holds them; either absent when not measured. */
export function serverView(server: ServerSection | undefined, network: NetworkSection | undefined): ServerView {
  return { ...(server ? { server } : {}), ...(network ? { network } : {}) };
}

/**
 * Across results: one scraper watched the server, so the merge keeps the first input's
 * sections that has them (adding scrapes of one server would count it twice). For replicates
 * that is the first replicate's view.
 */
export function mergeServerView(results: readonly Result[]): ServerView {
  return serverView(results.find((r) => r.server)?.server, results.find((r) => r.network)?.network);
}
