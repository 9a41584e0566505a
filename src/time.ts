import { performance } from 'node:perf_hooks';

/** The environment variable that carries the clock's offset to the threads and processes a run starts. */
export const CLOCK_OFFSET_ENV = 'LOADGATE_CLOCK_OFFSET';
/** How far an inherited offset may lie from a thread's own: a wall-clock step, not another boot's clock. */
const MAX_INHERITED_STEP_MS = 60_000;

/**
 * A clock of absolute milliseconds, sub-millisecond, that every thread and process on the machine
 * reads alike. All of them share one monotonic clock (CLOCK_MONOTONIC, which process.hrtime reads),
 * but each one's performance.timeOrigin is the wall clock it read when it started: two started on
 * either side of a step of the wall clock (NTP setting it, a virtual machine resumed) disagree by
 * the step, and a worker thread's send or a server's write time would be compared with a moment on
 * another scale. So the clock is
 *
 *   now = offset + monotonic,   offset = wall − monotonic,
 *
 * with one offset for the whole family: the one `env` carries when a parent set it, else this
 * thread's own (its time origin less that origin on the monotonic clock), written into `env` for
 * the children it starts (threads and processes inherit process.env). An inherited offset more
 * than a minute from this thread's own is not a parent's of this boot (the monotonic clock
 * restarts with the machine; a stale one left in a shell's environment would date every record
 * wrongly) and is replaced by its own. The monotonic reading is taken once: each reading is then
 * (offset + monotonic origin) + performance.now(), one addition.
 */
export function familyClock(env: Record<string, string | undefined>): () => number {
  const monotonicOrigin = monotonicOriginOfThisThread();
  const own = performance.timeOrigin - monotonicOrigin;
  const inherited = Number(env[CLOCK_OFFSET_ENV]);
  const offset = Number.isFinite(inherited) && Math.abs(inherited - own) <= MAX_INHERITED_STEP_MS ? inherited : own;
  env[CLOCK_OFFSET_ENV] = String(offset);
  const origin = offset + monotonicOrigin;
  return () => origin + performance.now();
}

/**
 * This thread's time origin on the monotonic clock: performance.now() counts from it. The monotonic
 * reading is taken between two performance.now() readings and set against their midpoint; of a few
 * tries the tightest pair is kept (the first calls run cold, tens of microseconds apart), so the
 * origin is known to within half that pair's gap, well under a microsecond.
 */
function monotonicOriginOfThisThread(): number {
  let gap = Infinity;
  let origin = 0;
  for (let i = 0; i < 5; i++) {
    const a = performance.now();
    const m = Number(process.hrtime.bigint()) / 1e6;
    const b = performance.now();
    if (b - a < gap) [gap, origin] = [b - a, m - (a + b) / 2];
  }
  return origin;
}

/** Absolute time in milliseconds with sub-millisecond precision; comparable across processes on one machine. */
export const now = familyClock(process.env);
