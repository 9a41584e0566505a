/** Stated in every result and report, so a reader never has to guess what a number means. */
export const DEFINITIONS: Record<string, string> = {
  ttft_ms: 'time to first token = first content chunk − intended send time (coordinated-omission safe); role-only chunks do not count',
  ttft_from_send_ms: 'first content chunk − actual send time (hides generator lateness; for comparison only)',
  time_to_first_answer_ms: 'first non-reasoning content chunk − intended send time',
  tpot_ms: 'time per output token = (last content chunk − first content chunk) / (output tokens − 1), requests with > 1 token',
  itl_ms: 'inter-token latency = each gap between consecutive content chunks (excludes TTFT)',
  e2e_ms: 'end-to-end = last content chunk − intended send time',
  normalized_latency_ms: 'E2E / output tokens',
  schedule_lag_ms: "actual send − intended send: the load generator's own lateness",
  pool_wait_ms:
    "being written on a connection − actual send: time a window request waited inside the generator's HTTP pool, opening a connection included",
  window_cpu:
    "the generator thread's CPU over the window in shares of one core (the busiest thread when several): busy = its CPU time − the event-loop turns the dispatcher spun idle before arrivals (timed as they happen); spin = those turns",
  throughput:
    'successful requests that ended inside the steady window (whenever they were scheduled), and their output and prompt tokens, per second of the window: past saturation it flattens at what the server can complete',
  goodput:
    'successful requests meeting every SLO (TTFT, TPOT, E2E), per second of the window and as a fraction of requests scheduled in it',
  window: 'latency metrics cover successful requests whose intended send time falls in the steady window; warmup and cooldown are excluded',
};
