import { Count, Described, Nullable, Type, type Static } from '../json-schema.js';
import { newHistogram, recordMs, summarizeMs, SummarySchema, type Histogram } from '../metrics/histogram.js';
import { round3 } from '../numbers.js';

/**
 * Per-turn figures of a multi-turn run, by turn index (0 is a conversation's first turn): how
 * many turns were sent and answered, their TTFT from the intended send time, and the prompt
 * tokens the server counted, so the context's growth turn after turn can be read beside the
 * server's prefix-cache hit rate. Turns past MAX_TURN_ROWS share the last row.
 */
export const MAX_TURN_ROWS = 32;

/** One ended turn, as the run saw it. */
export interface TurnOutcome {
  turn: number;
  ok: boolean;
  inWindow: boolean;
  /** From the intended send time; NaN when no output came. */
  ttftMs: number;
  /** The server's usage.prompt_tokens; −1 when it sent none. */
  promptTokens: number;
  /** Prompt tokens asked for: the whole conversation so far, as estimated from the calibration. */
  requestedPromptTokens: number;
  /** The reply's tokens (usage, else chunks). */
  replyTokens: number;
}

interface Row {
  sent: number;
  ok: number;
  ttft: Histogram;
  prompt: { sum: number; n: number };
  requested: { sum: number; n: number };
  reply: { sum: number; n: number };
}

export const TurnRowSchema = Type.Object({
  turn: Count(),
  sent: Count(),
  ok: Count(),
  ttft_ms: Nullable(SummarySchema),
  prompt_tokens: Described('Mean prompt tokens the server counted (usage); null when none reported.', Nullable(Type.Number())),
  prompt_tokens_requested: Nullable(Type.Number()),
  reply_tokens: Nullable(Type.Number()),
});
export type TurnRow = Static<typeof TurnRowSchema>;

const mean = (a: { sum: number; n: number }) => (a.n > 0 ? round3(a.sum / a.n) : null);
const add = (a: { sum: number; n: number }, v: number) => {
  a.sum += v;
  a.n++;
};

export class TurnStats {
  private readonly rows: Row[] = [];

  /** Window turns only, as every other figure of the result. */
  record(o: TurnOutcome): void {
    if (!o.inWindow) return;
    const k = Math.min(o.turn, MAX_TURN_ROWS - 1);
    while (this.rows.length <= k)
      this.rows.push({
        sent: 0,
        ok: 0,
        ttft: newHistogram(),
        prompt: { sum: 0, n: 0 },
        requested: { sum: 0, n: 0 },
        reply: { sum: 0, n: 0 },
      });
    const r = this.rows[k];
    r.sent++;
    add(r.requested, o.requestedPromptTokens);
    if (!o.ok) return;
    r.ok++;
    if (!Number.isNaN(o.ttftMs)) recordMs(r.ttft, o.ttftMs);
    if (o.promptTokens >= 0) add(r.prompt, o.promptTokens);
    add(r.reply, o.replyTokens);
  }

  table(): TurnRow[] {
    return this.rows.map((r, turn) => ({
      turn,
      sent: r.sent,
      ok: r.ok,
      ttft_ms: summarizeMs(r.ttft),
      prompt_tokens: mean(r.prompt),
      prompt_tokens_requested: mean(r.requested),
      reply_tokens: mean(r.reply),
    }));
  }
}

/**
 * Did the context grow as a conversation's should? Turn k's requested prompt is turn k − 1's
 * plus the reply actually received (its token count) plus the new message, so the server's
 * count should grow by as much: summed over turns 1..K−1,
 *
 *   delivered = Σ (prompt_k − prompt_{k−1}),   requested = Σ (requested_k − requested_{k−1}),
 *
 * from the per-turn means; both sides come from the same rows, so conversations that end
 * early (fewer turns) change both alike. Null with fewer than two turns measured.
 */
export function contextGrowth(rows: TurnRow[]): { delivered: number; requested: number } | null {
  let delivered = 0;
  let requested = 0;
  let pairs = 0;
  for (let k = 1; k < rows.length; k++) {
    const [a, b] = [rows[k - 1], rows[k]];
    if (a.prompt_tokens === null || b.prompt_tokens === null || a.prompt_tokens_requested === null || b.prompt_tokens_requested === null)
      continue;
    delivered += b.prompt_tokens - a.prompt_tokens;
    requested += b.prompt_tokens_requested - a.prompt_tokens_requested;
    pairs++;
  }
  return pairs > 0 ? { delivered: round3(delivered), requested: round3(requested) } : null;
}
