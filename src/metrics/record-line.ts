import type { RequestRecord } from './recorder.js';

/**
 * One request as a JSON line of the optional raw records file: absolute ms timestamps, null
 * when never reached. `id` is unique within the run ("<thread>-<index>", thread 0 in a
 * one-thread run); `request_id` (sent as x-request-id) is unique across runs.
 */
export function recordLine(r: RequestRecord): string {
  return JSON.stringify({
    id: r.recordId,
    request_id: r.requestId,
    outcome: r.outcome,
    in_window: r.inWindow,
    t_sched: r.tSched,
    t_send: r.tSend,
    t_first: r.tFirst,
    t_last: r.tLast,
    late_first_ms: r.lateFirst,
    late_last_ms: r.lateLast,
    t_end: r.tEnd,
    prompt_tokens: r.usagePrompt < 0 ? null : r.usagePrompt,
    output_tokens: r.outputTokens,
    status: r.status,
    detail: r.detail,
  });
}
