/**
 * The `server` and `network` sections of a result: what the engine's /metrics said over the
 * window, and the network probed before the warmup (src/server). Both are measured once per
 * run, from the main thread, never per generator thread or shard.
 */
import type { NetworkSection, ServerSection } from '../server/types.js';
import { mergeReplicateSections } from '../server/window.js';
import type { MergeMode, Result } from './types.js';

export type ServerView = Pick<Result, 'server' | 'network'>;

/** The sections as a result holds them; either absent when not measured. */
export function serverView(server: ServerSection | undefined, network: NetworkSection | undefined): ServerView {
  return { ...(server ? { server } : {}), ...(network ? { network } : {}) };
}

/**
 * Across results. Shards ran at the same time against one server, and each may have scraped
 * it: the merge keeps the first input's sections that has them (adding scrapes of one server
 * would count it twice). Replicates ran one after another, each with its own scraper over its
 * own window: their server sections combine over the windows added up
 * (mergeReplicateSections). The network was probed before each run's warmup: the first's is kept.
 */
export function mergeServerView(results: readonly Result[], mode: MergeMode): ServerView {
  const network = results.find((r) => r.network)?.network;
  const sections = results.filter((r) => r.server);
  if (mode === 'shards' || sections.length <= 1) return serverView(sections[0]?.server, network);
  return serverView(mergeReplicateSections(sections.map((r) => ({ section: r.server!, windowS: r.load.window_s }))), network);
}
