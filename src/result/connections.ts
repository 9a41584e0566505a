/**
 * The connection facts of `requests`: how many requests had to be re-sent because a reused
 * connection was closed under them, and whether the client stopped reusing connections.
 * Both are optional in a result (results made before loadgate counted them have neither).
 */
import type { KeepAliveFacts } from '../client/keep-alive.js';
import type { Result } from './types.js';

export type ConnectionFacts = Pick<Result['requests'], 'reconnects' | 'keep_alive'>;

/** From the recorder's count and the client's account of keep-alive. */
export function connectionFacts(reconnects: number, keepAlive: KeepAliveFacts | undefined): ConnectionFacts {
  return keepAlive === undefined ? { reconnects } : { reconnects, keep_alive: { ...keepAlive } };
}

/**
 * Across results (threads, shards, replicates): counts add; keep-alive counts as disabled when
 * any input disabled it (that generator sent one request per connection from then on), with
 * that input's reason. Absent when no input has the field.
 */
export function mergeConnectionFacts(results: Result[]): ConnectionFacts {
  const out: ConnectionFacts = {};
  const withReconnects = results.filter((r) => r.requests.reconnects !== undefined);
  if (withReconnects.length > 0) out.reconnects = withReconnects.reduce((a, r) => a + r.requests.reconnects!, 0);
  const kas = results.map((r) => r.requests.keep_alive).filter((k): k is KeepAliveFacts => k !== undefined);
  if (kas.length > 0) {
    const disabled = kas.find((k) => k.disabled);
    out.keep_alive = {
      disabled: disabled !== undefined,
      responses_observed: kas.reduce((a, k) => a + k.responses_observed, 0),
      server_closed: kas.reduce((a, k) => a + k.server_closed, 0),
      ...(disabled?.reason !== undefined ? { reason: disabled.reason } : {}),
    };
  }
  return out;
}
