/** Per-second counters over the whole run (all phases), indexed by seconds since the run started. */
export class TimeSeries {
  readonly sentPerS: number[] = [];
  readonly okPerS: number[] = [];
  readonly errorsPerS: number[] = [];
  readonly outputTokensPerS: number[] = [];

  constructor(private readonly runStart: number) {}

  private bucket(arr: number[], t: number): number {
    const i = Math.max(0, Math.floor((t - this.runStart) / 1000));
    while (arr.length <= i) arr.push(0);
    return i;
  }

  sent(t: number): void {
    this.sentPerS[this.bucket(this.sentPerS, t)]!++;
  }

  finished(t: number, ok: boolean, outputTokens: number): void {
    if (ok) {
      this.okPerS[this.bucket(this.okPerS, t)]!++;
      this.outputTokensPerS[this.bucket(this.outputTokensPerS, t)]! += outputTokens;
    } else {
      this.errorsPerS[this.bucket(this.errorsPerS, t)]!++;
    }
  }
}
