import { now } from '../time.js';
import { dispatchOpenLoop, type DispatchHandle } from './open-loop.js';

/**
 * Dispatch for multi-turn sessions, whose later arrivals depend on completions. Session starts
 * are an open-loop schedule, fired by the open-loop dispatcher at their absolute times. Within
 * a session, turn k + 1 is due at the end of turn k plus a think time,
 *
 *   tDue(k + 1) = tEnd(k) + think,
 *
 * and is fired at that absolute time: a slow reply delays the next turn as it would delay a
 * person, and the next turn's latency counts from tDue, not from when the timer ran, so a late
 * wake-up (or a busy generator) shows as schedule lag instead of vanishing (no coordinated
 * omission within a session). A turn the caller ends without a next think time (a failure, or
 * the last turn) ends the session; a turn that would be due at or after `until` is not sent and
 * the session is cut. `done` resolves once no session can send again.
 */
export interface SessionDispatchOptions {
  /** Session start offsets in ms from runStart, ascending. */
  starts: Float64Array;
  runStart: number;
  /** Absolute ms from which no turn is sent. */
  until: number;
  /**
   * Fires turn `turn` of session `s`, due at tDue. `ended` must be called exactly once, when the
   * turn ends: with the think time before the next turn, or null when the session is over.
   */
  fire(s: number, turn: number, tDue: number, ended: (tEnd: number, thinkMs: number | null) => void): void;
  /** Session s would have sent turn `turn`, but the run's end (or its interruption) came first. */
  cut(s: number, turn: number): void;
}

export function dispatchSessions(o: SessionDispatchOptions): DispatchHandle {
  let open = 0;
  let startsDone = false;
  let stopped = false;
  let started = 0;
  /** Think-time timers pending, with the session and turn each will send. */
  const timers = new Map<NodeJS.Timeout, [number, number]>();
  let resolve!: (n: number) => void;
  const done = new Promise<number>((r) => (resolve = r));
  const settle = () => {
    if ((startsDone || stopped) && open === 0) resolve(started);
  };

  const turn = (s: number, k: number, tDue: number): void => {
    o.fire(s, k, tDue, (tEnd, thinkMs) => {
      if (thinkMs === null || stopped) return close();
      const next = tEnd + thinkMs;
      if (next >= o.until) {
        o.cut(s, k + 1);
        return close();
      }
      // Not synchronously from inside the ended turn: a timer lets undici free its connection first.
      wait(s, k + 1, next);
    });
  };
  /** Sleeps until `at`, then covers what the timer left (it may wake up to a millisecond early) with setImmediate turns: never early. */
  const wait = (s: number, k: number, at: number): void => {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        const due = (): void => {
          if (stopped) close();
          else if (now() >= at) turn(s, k, at);
          else setImmediate(due);
        };
        due();
      },
      Math.max(0, Math.floor(at - now())),
    );
    timers.set(timer, [s, k]);
  };
  const close = () => {
    open--;
    settle();
  };

  const starts = dispatchOpenLoop({
    schedule: o.starts,
    runStart: o.runStart,
    fire: (s, tDue) => {
      started++;
      open++;
      turn(s, 0, tDue);
    },
  });
  void starts.done.then(() => {
    startsDone = true;
    settle();
  });

  return {
    done,
    stop() {
      if (stopped) return;
      stopped = true;
      starts.stop();
      for (const [t, [s, k]] of timers) {
        clearTimeout(t);
        o.cut(s, k);
      }
      open -= timers.size; // their sessions end here
      timers.clear();
      settle();
    },
    spinMs: starts.spinMs,
  };
}
