import type { Outcome, StreamObserver } from '../../src/client/types.js';

export interface End {
  t: number;
  outcome: Outcome;
  detail?: string;
}

/** A StreamObserver that records every callback, for assertions. */
export class RecordingSpy implements StreamObserver {
  written: number[] = [];
  reconnects: number[] = [];
  headers: { t: number; status: number }[] = [];
  contents: { t: number; kind: 'reasoning' | 'answer' }[] = [];
  usage: { prompt: number; completion: number }[] = [];
  ends: End[] = [];
  /** Resolves with the first onEnd. */
  readonly ended: Promise<End>;
  private resolve!: (e: End) => void;

  constructor() {
    this.ended = new Promise((r) => (this.resolve = r));
  }

  onWritten(t: number): void {
    this.written.push(t);
  }
  onReconnect(t: number): void {
    this.reconnects.push(t);
  }
  onHeaders(t: number, status: number): void {
    this.headers.push({ t, status });
  }
  onContent(t: number, kind: 'reasoning' | 'answer'): void {
    this.contents.push({ t, kind });
  }
  onUsage(prompt: number, completion: number): void {
    this.usage.push({ prompt, completion });
  }
  onEnd(t: number, outcome: Outcome, detail?: string): void {
    this.ends.push(detail === undefined ? { t, outcome } : { t, outcome, detail });
    this.resolve(this.ends[0]);
  }
}
