import { OUTCOME_CLASSES, type OutcomeClass } from './ground-truth.js';

/** Engine state sampled when /metrics is scraped. */
export interface EngineGauges {
  model: string;
  running: number;
  waiting: number;
  kvUsage: number;
  prefixQueries: number;
  prefixHits: number;
  steps: number;
  busyMs: number;
}

/**
 * Counters for /metrics. Engine series use vLLM's names (`vllm:num_requests_running`,
 * `vllm:kv_cache_usage_perc`, ...) so scrapers and dashboards built for vLLM work on the
 * sim unchanged; sim-only series start with `loadgate_sim_`.
 */
export class SimMetrics {
  private readonly requests = new Map<OutcomeClass, number>(OUTCOME_CLASSES.map((c) => [c, 0]));
  private promptTokens = 0;
  private generationTokens = 0;

  count(outcome: OutcomeClass, promptTokens: number, outputTokens: number): void {
    this.requests.set(outcome, this.requests.get(outcome)! + 1);
    this.promptTokens += promptTokens;
    this.generationTokens += outputTokens;
  }

  render(g: EngineGauges): string {
    const m = `model_name=${JSON.stringify(g.model)}`;
    const cpu = process.cpuUsage();
    const lines = [
      '# HELP vllm:num_requests_running Requests in the running batch (engine) or holding a slot (paced).',
      '# TYPE vllm:num_requests_running gauge',
      `vllm:num_requests_running{${m}} ${g.running}`,
      '# HELP vllm:num_requests_waiting Requests waiting to be admitted.',
      '# TYPE vllm:num_requests_waiting gauge',
      `vllm:num_requests_waiting{${m}} ${g.waiting}`,
      '# HELP vllm:kv_cache_usage_perc Fraction of KV-cache blocks in use (0 to 1).',
      '# TYPE vllm:kv_cache_usage_perc gauge',
      `vllm:kv_cache_usage_perc{${m}} ${g.kvUsage}`,
      '# HELP vllm:prompt_tokens_total Prompt tokens of finished requests.',
      '# TYPE vllm:prompt_tokens_total counter',
      `vllm:prompt_tokens_total{${m}} ${this.promptTokens}`,
      '# HELP vllm:generation_tokens_total Output tokens sent.',
      '# TYPE vllm:generation_tokens_total counter',
      `vllm:generation_tokens_total{${m}} ${this.generationTokens}`,
      '# HELP vllm:prefix_cache_queries_total Prompt tokens looked up in the prefix cache.',
      '# TYPE vllm:prefix_cache_queries_total counter',
      `vllm:prefix_cache_queries_total{${m}} ${g.prefixQueries}`,
      '# HELP vllm:prefix_cache_hits_total Prompt tokens found in the prefix cache.',
      '# TYPE vllm:prefix_cache_hits_total counter',
      `vllm:prefix_cache_hits_total{${m}} ${g.prefixHits}`,
      '# HELP loadgate_sim_requests_total Finished requests by how they ended.',
      '# TYPE loadgate_sim_requests_total counter',
      ...[...this.requests].map(([c, n]) => `loadgate_sim_requests_total{${m},class="${c}"} ${n}`),
      '# HELP loadgate_sim_steps_total Engine iterations run.',
      '# TYPE loadgate_sim_steps_total counter',
      `loadgate_sim_steps_total{${m}} ${g.steps}`,
      '# HELP loadgate_sim_busy_seconds_total Modelled engine compute time (sum of step durations); over wall time it is the engine utilization.',
      '# TYPE loadgate_sim_busy_seconds_total counter',
      `loadgate_sim_busy_seconds_total{${m}} ${g.busyMs / 1000}`,
      '# HELP process_cpu_seconds_total CPU time of the sim process, user and system.',
      '# TYPE process_cpu_seconds_total counter',
      `process_cpu_seconds_total ${(cpu.user + cpu.system) / 1e6}`,
    ];
    return lines.join('\n') + '\n';
  }
}
