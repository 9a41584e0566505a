import type { ResolvedSpec } from '../spec/types.js';

/** How long the simulator may take to start (launchSim's own timeout) and to stop (SIGTERM, then SIGKILL after 3 s). */
const SIM_START_STOP_MS = 10_000 + 3_000;
/**
 * Calibration requests, at most, one after another: discovery tries two tokenize endpoints
 * (each capped at 10 s) and one probe, then counts 4 sizes plus up to 16 dataset samples, or 2
 * prefix sizes (src/workload/calibrate.ts, workload.ts). Each is bounded by the request timeout.
 */
const CALIBRATION_TOKENIZE_MS = 2 * 10_000;
const CALIBRATION_REQUESTS = 1 + 4 + 16;
/** measure() waits the request timeout plus 1 s for stragglers, cancels them, and forces their end 1 s later. */
const DRAIN_GRACE_MS = 2_000;
/** Startup, result assembly, merging, writing: seconds at most; the rest is headroom for a loaded machine. */
const MARGIN_MS = 30_000;

/**
 * The hard wall-clock bound of `loadgate run` for this spec, past which it stops as on
 * Ctrl-C and writes what it has. Each phase is bounded by the spec, so their sum bounds the run:
 *
 *   per replicate:  simulator start/stop (when url is sim)   SIM_START_STOP_MS
 *                 + readiness wait                          ready_timeout
 *                 + calibration (when not off)              20 s + 21 × request_timeout
 *                 + warmup + steady + cooldown              the schedule
 *                 + drain                                   request_timeout + 2 s
 *   run = replicates × per replicate (× 2 sides' readiness for interleaved A/B is the same
 *         wait, in parallel) + MARGIN_MS
 *
 * It is a guard against a hang, not a deadline a healthy run could meet late: every term is
 * the phase's own limit, never its typical length.
 */
export function wallClockBoundMs(r: ResolvedSpec, replicates = r.spec.load.replicates): number {
  const calibration = r.spec.workload.calibrate === 'off' ? 0 : CALIBRATION_TOKENIZE_MS + CALIBRATION_REQUESTS * r.requestTimeoutMs;
  const perReplicate =
    (r.spec.target.url === 'sim' ? SIM_START_STOP_MS : 0) +
    r.readyTimeoutMs +
    calibration +
    r.warmupMs +
    r.steadyMs +
    r.cooldownMs +
    r.requestTimeoutMs +
    DRAIN_GRACE_MS;
  return replicates * perReplicate + MARGIN_MS;
}
