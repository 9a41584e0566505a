/**
 * The hard wall-clock bound of a command: at `boundMs` it calls `onBound` (stop as on
 * Ctrl-C and write what there is); if the command has still not finished `graceMs` later,
 * `onGiveUp` (exit without waiting further). The timers are unref'd: they never keep a
 * finished process alive. Returns the disarm function.
 */
export function armWatchdog(o: { boundMs: number; graceMs: number; onBound: () => void; onGiveUp: () => void }): () => void {
  let giveUp: NodeJS.Timeout | undefined;
  const bound = setTimeout(() => {
    o.onBound();
    giveUp = setTimeout(o.onGiveUp, o.graceMs).unref();
  }, o.boundMs).unref();
  return () => {
    clearTimeout(bound);
    clearTimeout(giveUp);
  };
}

/** After the bound aborts a run, how long it may take to write what it has before the process gives up. */
export const BOUND_GRACE_MS = 15_000;
