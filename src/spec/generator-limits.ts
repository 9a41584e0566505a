/** Past these the generator, not the server, is what a run measured: its verdict is inconclusive. */
export interface GeneratorLimits {
  max_schedule_lag_p99_ms: number;
  max_event_loop_delay_p99_ms: number;
  /** Busy share of one core, per generator thread, over the window. */
  max_generator_cpu: number;
  max_pool_wait_p99_ms: number;
  /** Achieved arrival rate as a share of the offered one (open loop). */
  min_achieved_fraction: number;
}

/** The keys of gate.validity, in the order its schema and its error messages list them. */
export const GENERATOR_LIMIT_KEYS = Object.keys({
  max_schedule_lag_p99_ms: 0,
  max_event_loop_delay_p99_ms: 0,
  max_generator_cpu: 0,
  max_pool_wait_p99_ms: 0,
  min_achieved_fraction: 0,
} satisfies Record<keyof GeneratorLimits, 0>) as (keyof GeneratorLimits)[];

/**
 * The defaults of the spec's gate.validity. A module of their own, without ajv, so the result's
 * validity checks (which a worker thread runs) need not load the gate section's schema.
 */
export const DEFAULT_GENERATOR_LIMITS: GeneratorLimits = {
  max_schedule_lag_p99_ms: 5,
  max_event_loop_delay_p99_ms: 20,
  max_generator_cpu: 0.8,
  max_pool_wait_p99_ms: 50,
  min_achieved_fraction: 0.95,
};
