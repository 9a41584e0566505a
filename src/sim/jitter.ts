import { createRng, deriveSeed, normal, type Rng } from '../rng.js';

/** Sim config `jitter`: coefficients of variation of the engine's compute times (0 = none). */
export interface JitterConfig {
  /** Each engine step's duration: kernel timing, scheduling and memory-bandwidth noise. */
  step_cv: number;
  /** Each request's prefill cost, fixed for the request: some prompts are dearer than others. */
  request_cv: number;
  /** Every compute time of one server run, drawn once from the sim's `seed`: a run-to-run drift (vary `seed` between runs). */
  run_cv: number;
}

/**
 * A lognormal factor with mean 1 and coefficient of variation cv: exp(σZ − σ²/2) with
 * σ² = ln(1 + cv²), since a lognormal's mean is exp(μ + σ²/2) and its CV² is exp(σ²) − 1.
 * Mean 1 keeps the engine's analytic saturation rate (src/sim/engine.ts) unchanged by jitter.
 */
export function lognormalFactor(rng: Rng, cv: number): number {
  if (cv === 0) return 1;
  const s2 = Math.log(1 + cv * cv);
  return Math.exp(Math.sqrt(s2) * normal(rng) - s2 / 2);
}

/** The seeded factors the engine multiplies its compute times by. */
export class Jitter {
  private readonly stepRng: Rng;
  private readonly requestRng: Rng;
  /** This run's factor on every compute time. */
  readonly run: number;

  constructor(
    private readonly c: JitterConfig,
    seed: number,
  ) {
    this.stepRng = createRng(deriveSeed(seed, 'jitter.step'));
    this.requestRng = createRng(deriveSeed(seed, 'jitter.request'));
    this.run = lognormalFactor(createRng(deriveSeed(seed, 'jitter.run')), c.run_cv);
  }

  /** Factor of one step's duration: this run's times the step's own. */
  step(): number {
    return this.run * lognormalFactor(this.stepRng, this.c.step_cv);
  }

  /** Factor of one request's prefill cost, drawn when it is admitted. */
  request(): number {
    return lognormalFactor(this.requestRng, this.c.request_cv);
  }
}
