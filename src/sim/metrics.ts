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

/** vLLM's bucket bounds (s) for TTFT; the sim uses them for queue time too, where vLLM's own start at 0.3 s (too coarse for a sim's ms queues). */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560];
/** vLLM's bucket bounds (s) for inter-token latency. */
const ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80];

/** A Prometheus histogram: per-bucket counts (rendered cumulative), sum and count. */
class PromHistogram {
  private readonly counts: number[];
  private sum = 0;
  private n = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length).fill(0);
  }

  observe(seconds: number): void {
    const i = this.bounds.findIndex((b) => seconds <= b);
    if (i >= 0) this.counts[i]++;
    this.sum += seconds;
    this.n++;
  }

  lines(name: string, labels: string): string[] {
    let cumulative = 0;
    return [
      ...this.bounds.map((b, i) => `${name}_bucket{${labels},le="${b}"} ${(cumulative += this.counts[i])}`),
      `${name}_bucket{${labels},le="+Inf"} ${this.n}`,
      `${name}_sum{${labels}} ${this.sum}`,
      `${name}_count{${labels}} ${this.n}`,
    ];
  }
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
  private readonly ttft = new PromHistogram(LATENCY_BUCKETS);
  private readonly queueTime = new PromHistogram(LATENCY_BUCKETS);
  private readonly itl = new PromHistogram(ITL_BUCKETS);

  /** A request left the waiting queue (its time in it, ms), as vLLM's request_queue_time_seconds. */
  queued(ms: number): void {
    this.queueTime.observe(ms / 1000);
  }

  /** A request's first token was written (ms since it was received), as vLLM's time_to_first_token_seconds. */
  firstToken(ms: number): void {
    this.ttft.observe(ms / 1000);
  }

  /** The gap before a later token, ms. */
  tokenGap(ms: number): void {
    this.itl.observe(ms / 1000);
  }

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
      '# HELP vllm:num_preemptions_total Preemptions: always 0, the sim reserves every KV block a sequence needs at admission.',
      '# TYPE vllm:num_preemptions_total counter',
      `vllm:num_preemptions_total{${m}} 0`,
      '# HELP vllm:time_to_first_token_seconds Time from the request received to its first token written, s.',
      '# TYPE vllm:time_to_first_token_seconds histogram',
      ...this.ttft.lines('vllm:time_to_first_token_seconds', m),
      '# HELP vllm:request_queue_time_seconds Time in the waiting queue before admission, s.',
      '# TYPE vllm:request_queue_time_seconds histogram',
      ...this.queueTime.lines('vllm:request_queue_time_seconds', m),
      '# HELP vllm:inter_token_latency_seconds Time between consecutive tokens written, s.',
      '# TYPE vllm:inter_token_latency_seconds histogram',
      ...this.itl.lines('vllm:inter_token_latency_seconds', m),
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
