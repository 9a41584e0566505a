/**
 * A server that gets slower the longer it runs (sim config `drift: { per_minute: f }`): every
 * compute time (engine steps; paced TTFT and ITL) is multiplied by 1 + f × minutes since the
 * server started listening, on top of `slowdown`. Deterministic, so a seeded run is exactly
 * reproducible: f = 0.2 is "20 % slower after a minute", the leak a soak is meant to catch.
 */
export class Drift {
  constructor(
    private readonly perMinute: number,
    /** Absolute ms the server started listening. */
    private readonly origin: number,
  ) {}

  factor(t: number): number {
    return this.perMinute === 0 ? 1 : 1 + (this.perMinute * Math.max(0, t - this.origin)) / 60_000;
  }
}
