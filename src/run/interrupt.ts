/**
 * Ctrl-C and SIGTERM during a run. The first signal aborts at once — dispatch stops,
 * in-flight requests are cancelled, the readiness wait and calibration end — and the result
 * is written from what there is. Further signals never kill the process before that: each is
 * acknowledged and marks the run `forced`, so the command exits 130 once the result is out.
 */
export function trapInterrupts(
  abort: AbortController,
  say: (line: string) => void,
  first = 'interrupted: stopping dispatch, cancelling in-flight requests, writing the result…',
): { readonly forced: boolean; release(): void } {
  let count = 0;
  const onSignal = () => {
    count += 1;
    if (count === 1) {
      say(first);
      abort.abort();
    } else say('interrupted again: the result is being written; exiting with 130 as soon as it is');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    get forced() {
      return count > 1;
    },
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** The conventional exit code of a process ended by SIGINT (128 + 2). */
export const EXIT_INTERRUPTED = 130;
