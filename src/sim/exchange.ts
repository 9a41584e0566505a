import type { ServerResponse } from 'node:http';
import { now } from '../time.js';
import { faultToken, type FaultPlan } from './faults.js';
import { simTiming, type GroundTruth, type OutcomeClass } from './ground-truth.js';
import type { SimMetrics } from './metrics.js';
import type { ParsedRequest } from './request.js';
import { Sequence, type Scheduler, type SequenceSink } from './sequence.js';
import { ChunkEncoder, DONE, type Usage } from './sse-writer.js';

export interface ExchangeContext {
  /** Undefined in fast mode, where nothing is scheduled. */
  scheduler: Scheduler | undefined;
  metrics: SimMetrics;
  model: string;
  /** config.record_token_times: keep every token's write time in the record. */
  recordTokenTimes: boolean;
}

/**
 * One completion request from headers to the last byte: turns the scheduler's tokens into
 * SSE chunks (or one JSON body), injects the request's stream fault, and fills its
 * ground-truth record with the real time of every write.
 */
export class Exchange implements SequenceSink {
  readonly seq: Sequence;
  private readonly chunks: ChunkEncoder;
  /** Output token after which the stream fault strikes; 0 = none. */
  private readonly faultAt: number;
  /** Fast mode collects the whole response here and writes it once. */
  private pending: string | undefined;
  private malformed = false;
  private ended = false;
  /** A `hang` fault struck: nothing more is written (fast mode's remaining tokens are ignored). */
  private hung = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly req: ParsedRequest,
    private readonly record: GroundTruth,
    private readonly plan: FaultPlan,
    outputTokens: number,
    blockKeys: { prompt: number[]; reply: number[] },
    private readonly ctx: ExchangeContext,
  ) {
    this.seq = new Sequence(record.received, req.promptTokens, blockKeys.prompt, outputTokens, this, blockKeys.reply);
    const id = (req.api === 'chat' ? 'chatcmpl-' : 'cmpl-') + record.id;
    this.chunks = new ChunkEncoder(req.api, id, ctx.model, Math.floor(Date.now() / 1000));
    this.faultAt = plan.stream ? faultToken(plan.streamAt, outputTokens) : 0;
    res.on('close', () => {
      if (this.ended) return;
      ctx.scheduler?.cancel(this.seq);
      this.end('client_abort');
    });
  }

  /** Response headers (and chat's role chunk) go out at once, as vLLM's do; then the scheduler takes over. */
  start(): void {
    if (this.ended) return; // the client left during a header delay
    if (this.plan.slowloris) return this.slowloris();
    this.openStream();
    this.ctx.scheduler!.submit(this.seq);
  }

  /** Fast mode: every token is due now, and the whole response leaves in one write. */
  serveAtOnce(): void {
    if (this.ended) return;
    if (this.plan.slowloris) return this.slowloris();
    const t = now();
    this.pending = '';
    this.admitted(t);
    this.openStream();
    const n = this.seq.outputTokens;
    for (let i = 1; i <= n && !this.ended; i++) this.token(t, i === n);
  }

  admitted(t: number): void {
    this.record.admitted = t;
    this.ctx.metrics.queued(t - this.record.received);
    this.record.cached_tokens = this.seq.cachedTokens;
  }

  token(t: number, last: boolean): number {
    if (this.ended || this.hung) return t;
    const r = this.record;
    // The moment of this write, not the wake-up `t` that made the token due: one wake-up may
    // write many tokens, and the ground truth is when each left (the bench and tests hold the
    // client's timestamps against it). Fast mode gathers the whole response into one write.
    const written = this.pending !== undefined ? t : now();
    if (r.output_tokens++ === 0) {
      r.first_token = written;
      this.ctx.metrics.firstToken(written - r.received);
    } else this.ctx.metrics.tokenGap(written - r.last_token!);
    r.last_token = written;
    if (this.ctx.recordTokenTimes) (r.token_times ??= []).push(written);
    const strike = r.output_tokens === this.faultAt;
    if (!this.req.stream) {
      if (strike) this.strikeJson(last);
      else if (last) this.respondJson();
    } else if (strike) this.strikeStream(last);
    else if (last) this.close(this.lastChunk() + this.tail(), this.malformed ? 'malformed' : 'ok');
    else if (this.pending !== undefined) this.pending += this.chunks.tokenText;
    else {
      this.res.write(this.chunks.token);
      // Node's HTTP response corks its socket on a chunked write until the callback ends (to
      // send the chunk's size line, data and CRLF as one); one wake-up writing many streams'
      // tokens would send them all only at its end, after the times recorded. Sent now, as an
      // engine streams a token the moment it is decoded.
      this.res.socket?.uncork();
    }
    return written;
  }

  private openStream(): void {
    if (!this.req.stream) return;
    this.record.status = 200;
    this.res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': this.record.id,
    });
    if (this.pending !== undefined) this.pending += this.chunks.role;
    else if (this.chunks.role) this.res.write(this.chunks.role);
    else this.res.flushHeaders();
  }

  /** Headers, then nothing: the response stays open until the client goes away (counted as client_abort). */
  private slowloris(): void {
    this.record.status = 200;
    this.res.writeHead(200, {
      'content-type': this.req.stream ? 'text/event-stream; charset=utf-8' : 'application/json',
      'x-request-id': this.record.id,
    });
    this.res.flushHeaders();
  }

  private strikeStream(last: boolean): void {
    const chunk = last ? this.lastChunk() : this.chunks.tokenText;
    switch (this.plan.stream) {
      case 'hang':
        // This token goes out, then no byte more; the engine lets the sequence go.
        this.ctx.scheduler?.cancel(this.seq);
        this.res.write((this.pending ?? '') + chunk);
        this.pending = undefined;
        this.hung = true;
        return;
      case 'malformed':
        this.malformed = true;
        if (last) this.close(chunk + this.chunks.malformed() + this.tail(), 'malformed');
        else if (this.pending !== undefined) this.pending += chunk + this.chunks.malformed();
        else this.res.write(chunk + this.chunks.malformed());
        return;
      case 'stream_error':
        return this.abort(chunk + this.chunks.error() + DONE, 'stream_error');
      case 'truncate':
        return this.abort(chunk, 'truncated');
      case 'reset':
        return this.abort(chunk, 'reset');
    }
  }

  private strikeJson(last: boolean): void {
    switch (this.plan.stream) {
      case 'hang':
        this.ctx.scheduler?.cancel(this.seq); // a JSON answer never comes
        this.hung = true;
        return;
      case 'malformed':
        this.malformed = true;
        if (last) this.respondJson();
        return;
      case 'stream_error':
        this.ctx.scheduler?.cancel(this.seq);
        return this.respondError(
          500,
          '{"error":{"message":"simulated engine failure","type":"InternalServerError","param":null,"code":500}}',
        );
      case 'truncate':
      case 'reset':
        this.ctx.scheduler?.cancel(this.seq);
        this.res.destroy();
        return this.end(this.plan.stream === 'reset' ? 'reset' : 'truncated');
    }
  }

  private respondJson(): void {
    let body = this.chunks.json(this.record.output_tokens, this.reason(), this.usage(), simTiming(this.record));
    if (this.malformed) body = body.slice(0, body.length >> 1);
    this.record.status = 200;
    this.res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-request-id': this.record.id,
    });
    this.close(body, this.malformed ? 'malformed' : 'ok');
  }

  private respondError(status: number, body: string): void {
    this.record.status = status;
    this.res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    this.close(body, 'http_5xx');
  }

  /** Cuts the stream after `data`: cleanly (truncate, error event) or by resetting the socket. */
  private abort(data: string, outcome: OutcomeClass): void {
    this.ctx.scheduler?.cancel(this.seq);
    if (outcome !== 'reset') return this.close(data, outcome);
    this.res.write((this.pending ?? '') + data, () => this.res.destroy());
    this.pending = undefined;
    this.end(outcome);
  }

  private close(data: string, outcome: OutcomeClass): void {
    this.res.end(this.pending === undefined ? data : this.pending + data);
    this.pending = undefined;
    this.end(outcome);
  }

  private end(outcome: OutcomeClass): void {
    this.ended = true;
    const r = this.record;
    r.ended = now();
    r.outcome = outcome;
    this.ctx.metrics.count(outcome, r.prompt_tokens, r.output_tokens);
  }

  private lastChunk(): string {
    return this.chunks.last(this.reason());
  }

  /** Usage chunk (if asked for) and [DONE]. */
  private tail(): string {
    return (this.req.includeUsage ? this.chunks.usage(this.usage(), simTiming(this.record)) : '') + DONE;
  }

  private reason(): 'length' | 'stop' {
    return this.record.output_tokens >= this.req.maxTokens ? 'length' : 'stop';
  }

  private usage(): Usage {
    const r = this.record;
    return {
      prompt_tokens: r.prompt_tokens,
      completion_tokens: r.output_tokens,
      total_tokens: r.prompt_tokens + r.output_tokens,
      prompt_tokens_details: { cached_tokens: r.cached_tokens },
    };
  }
}
