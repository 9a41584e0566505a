import { dispatchSessions } from '../dispatch/sessions.js';
import type { DispatchHandle } from '../dispatch/open-loop.js';
import type { RequestRecord } from '../metrics/recorder.js';
import type { Conversation, SessionSource, WorkItem } from '../workload/types.js';

/** measure()'s send, with the request's own work item, the reply-text capture and the record at its end. */
export type SendTurn = (
  i: number,
  offsetMs: number,
  finished: (r: RequestRecord) => void,
  item: WorkItem,
  capture: (text: string) => void,
) => void;

export interface SessionRunOptions {
  source: SessionSource;
  /** Session start offsets (the open-loop schedule at load.rate sessions/s). */
  starts: Float64Array;
  runStart: number;
  /** Absolute ms from which no turn is sent. */
  until: number;
  send: SendTurn;
}

/**
 * A multi-turn run: conversations started on the open-loop schedule, each turn sent with the
 * whole conversation so far (the workload's), its reply's streamed text captured for the next
 * turn, and the next turn timed by the session dispatcher. Requests are numbered in the order
 * they are sent, as in any run. A failed turn (any outcome but ok) ends its conversation: the
 * failure is counted once, like any request's, and the rest of the conversation is never sent.
 */
export function runSessions(o: SessionRunOptions): DispatchHandle {
  // A session's turns are reported with its first turn's window: per-turn figures cover the
  // conversations started in the window, every turn of them, so late turns are not left out.
  const conversations = new Map<number, { c: Conversation; inWindow?: boolean; reply?: { text: string; tokens: number } }>();
  let requests = 0;
  return dispatchSessions({
    starts: o.starts,
    runStart: o.runStart,
    until: o.until,
    cut(s) {
      conversations.delete(s);
      o.source.ended('cut');
    },
    fire(s, turn, tDue, ended) {
      if (turn === 0) conversations.set(s, { c: o.source.start() });
      const state = conversations.get(s)!;
      const item = state.c.nextTurn(state.reply);
      let text = '';
      const finished = (r: RequestRecord) => {
        const ok = r.outcome === 'ok';
        state.inWindow ??= r.inWindow;
        o.source.record({
          turn,
          ok,
          inWindow: state.inWindow,
          ttftMs: r.tFirst - r.tSched,
          promptTokens: r.usagePrompt,
          requestedPromptTokens: item.promptTokens,
          replyTokens: r.outputTokens,
        });
        const last = turn + 1 >= state.c.turns;
        if (!ok || last) {
          conversations.delete(s);
          // A turn cancelled by the run's interruption did not fail: its conversation was cut.
          o.source.ended(ok ? 'completed' : r.outcome === 'cancelled' ? 'cut' : 'failed');
          return ended(r.tEnd, null);
        }
        state.reply = { text, tokens: r.outputTokens };
        ended(r.tEnd, state.c.thinkMs());
      };
      o.send(requests++, tDue - o.runStart, finished, item, (t) => (text += t));
    },
  });
}
