import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { now } from '../time.js';
import type { SimConfig } from './config.js';
import { Engine } from './engine.js';
import { Exchange } from './exchange.js';
import { Faults, type FaultPlan } from './faults.js';
import { GroundTruthLog, type GroundTruth } from './ground-truth.js';
import { SimMetrics } from './metrics.js';
import { Paced } from './paced.js';
import { seededRandom, sampleOutputLength } from './random.js';
import { ApiError, parseRequest, type Api, type ParsedRequest } from './request.js';
import type { Scheduler } from './sequence.js';
import { Stalls } from './stalls.js';
import { Drift } from './drift.js';
import { chatText, countTokens, tokenIds } from './tokenize.js';
import { contextBlockKeys } from './context-cache.js';

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const JSON_HEADERS = { 'content-type': 'application/json' };

export interface SimServer {
  /** Resolves with the bound port. */
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

/** The HTTP surface of the simulator: OpenAI and vLLM routes plus /sim/* for ground truth. */
export function createSimServer(config: SimConfig): SimServer {
  const sim = new Simulator(config);
  const server: Server = createServer({ keepAliveTimeout: 60_000, requestTimeout: 0 }, (req, res) => sim.handle(req, res));
  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          sim.start(now());
          resolve((server.address() as AddressInfo).port);
        });
      });
    },
    close() {
      sim.stop();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The simulator's state behind its routes: the engine model, the faults, the ground-truth log, the counters. */
class Simulator {
  private readonly metrics = new SimMetrics();
  private readonly log: GroundTruthLog;
  private readonly faults: Faults;
  private readonly lengths: () => number;
  private readonly fast: boolean;
  private stalls!: Stalls; // counts from listen
  private scheduler: Scheduler | undefined;
  private engine: Engine | undefined;
  private readyAt = Infinity;
  private listenedAt = Infinity;
  private counter = 0;

  constructor(private readonly config: SimConfig) {
    this.log = new GroundTruthLog(config.ground_truth_size);
    this.faults = new Faults(config);
    this.lengths = seededRandom(config.seed);
    this.fast = config.mode === 'fast' || (config.mode === 'paced' && config.ttft_ms === 0 && config.itl_ms === 0);
  }

  /** Listening from `start`: stalls and drift count from here, and the server is ready after its startup delay. */
  start(start: number): void {
    const { config } = this;
    this.stalls = new Stalls(config.stall, start);
    this.listenedAt = start;
    const drift = config.drift ? new Drift(config.drift.per_minute, start) : undefined;
    if (config.mode === 'engine') this.scheduler = this.engine = new Engine(config, this.stalls, drift);
    else if (!this.fast) this.scheduler = new Paced(config, this.stalls, drift);
    this.readyAt = start + config.startup_delay_ms;
  }

  stop(): void {
    this.scheduler?.stop();
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const received = now();
    const path = req.url === undefined ? '/' : req.url.split('?', 1)[0];
    const route = `${req.method} ${path}`;
    const ready = received >= this.readyAt;
    if (this.serveAlways(route, res, ready)) return;
    if (!ready) return this.fail(res, new ApiError(503, 'the server is starting up', 'service_unavailable'));
    const fail = (err: ApiError) => this.fail(res, err);
    switch (route) {
      case 'POST /v1/chat/completions':
        return readJson(req, fail, (body) => this.complete(req, res, 'chat', body, received));
      case 'POST /v1/completions':
        return readJson(req, fail, (body) => this.complete(req, res, 'completions', body, received));
      case 'POST /tokenize':
        return readJson(req, fail, (body) => this.tokenize(res, body));
      case 'GET /v1/models':
        return send(res, 200, this.modelsBody(), JSON_HEADERS);
    }
    this.fail(res, new ApiError(404, `no route for ${route}`, 'not_found'));
  }

  /** The routes that answer while the server is still starting: health, metrics and the ground truth. */
  private serveAlways(route: string, res: ServerResponse, ready: boolean): boolean {
    switch (route) {
      case 'GET /health':
        send(res, ready ? 200 : 503, '');
        return true;
      case 'GET /metrics':
        send(res, 200, this.metrics.render(this.gauges()), { 'content-type': 'text/plain; version=0.0.4' });
        return true;
      case 'GET /sim/requests':
        send(res, 200, JSON.stringify(this.log.list()), JSON_HEADERS);
        return true;
      case 'DELETE /sim/requests':
        this.log.clear();
        send(res, 204, '');
        return true;
      case 'GET /sim/config':
        send(res, 200, JSON.stringify(this.config), JSON_HEADERS);
        return true;
    }
    return false;
  }

  private complete(req: IncomingMessage, res: ServerResponse, api: Api, body: unknown, received: number): void {
    const { config } = this;
    let parsed: ParsedRequest;
    let plan: FaultPlan;
    try {
      parsed = parseRequest(api, body, config);
      plan = this.faults.plan(header(req, 'x-sim-fault'));
      // A timed fault: from fail_from_ms after listen the server fails every request.
      if (config.fail_from_ms !== undefined && received - this.listenedAt >= config.fail_from_ms)
        plan.errorStatus ??= config.error_statuses[0];
    } catch (err) {
      return this.fail(res, err);
    }
    const natural = sampleOutputLength(config.output_tokens, this.lengths); // drawn for every request, keeping the sequence seed-stable
    const outputTokens = parsed.ignoreEos ? parsed.maxTokens : Math.min(parsed.maxTokens, Math.max(parsed.minTokens, natural));
    const record = this.groundTruth(header(req, 'x-request-id'), api, parsed, plan, received);
    if (plan.stallMs > 0) this.stalls.add(now(), plan.stallMs);

    const waiting = this.scheduler?.waiting ?? 0;
    if (plan.shed || (config.max_queue !== undefined && waiting >= config.max_queue)) {
      return this.reject(res, record, 429, `the waiting queue is full (${waiting} requests)`, {
        'retry-after': String(config.retry_after_s),
      });
    }
    if (plan.errorStatus !== undefined) return this.reject(res, record, plan.errorStatus, 'simulated server error');

    // The prompt's blocks, and the reply's, which a conversation's next turn resends (context-cache.ts).
    const keys =
      this.engine && config.enable_prefix_caching
        ? contextBlockKeys(typeof parsed.prompt === 'string' ? tokenIds(parsed.prompt) : parsed.prompt, outputTokens, config.block_size)
        : { prompt: [], reply: [] };
    const exchange = new Exchange(res, parsed, record, plan, outputTokens, keys, {
      scheduler: this.scheduler,
      metrics: this.metrics,
      model: config.model,
      recordTokenTimes: config.record_token_times,
    });
    const go = this.fast ? () => exchange.serveAtOnce() : () => exchange.start();
    if (plan.headerDelayMs > 0) setTimeout(go, plan.headerDelayMs);
    else go();
  }

  /** The request's ground-truth record, logged as it arrives; the exchange fills in the rest. */
  private groundTruth(id: string | undefined, api: Api, parsed: ParsedRequest, plan: FaultPlan, received: number): GroundTruth {
    const record: GroundTruth = {
      id: id ?? `sim-${++this.counter}`,
      api,
      stream: parsed.stream,
      received,
      admitted: null,
      first_token: null,
      last_token: null,
      ended: null,
      prompt_tokens: parsed.promptTokens,
      cached_tokens: 0,
      output_tokens: 0,
      status: 0,
      outcome: null,
      fault: faultName(plan),
    };
    this.log.add(record);
    return record;
  }

  /** An error answer outside any exchange; counted by class like every other request. */
  private fail(res: ServerResponse, err: unknown): void {
    if (!(err instanceof ApiError)) throw err;
    this.metrics.count(err.status === 429 ? 'http_429' : err.status >= 500 ? 'http_5xx' : 'http_4xx', 0, 0);
    send(res, err.status, err.body(), JSON_HEADERS);
  }

  private reject(res: ServerResponse, record: GroundTruth, status: number, message: string, headers: Record<string, string> = {}): void {
    record.status = status;
    record.ended = now();
    record.outcome = status === 429 ? 'http_429' : status >= 500 ? 'http_5xx' : 'http_4xx';
    this.metrics.count(record.outcome, record.prompt_tokens, 0);
    const type = status === 429 ? 'rate_limit_exceeded' : 'server_error';
    send(res, status, new ApiError(status, message, type).body(), { ...JSON_HEADERS, ...headers });
  }

  /** vLLM's /tokenize: `{prompt}` or `{messages}` → `{count, tokens, max_model_len}`. */
  private tokenize(res: ServerResponse, body: unknown): void {
    const b = (body ?? {}) as { prompt?: unknown; messages?: unknown };
    const text = typeof b.prompt === 'string' ? b.prompt : chatText(b.messages);
    if (text === undefined) return this.fail(res, new ApiError(400, 'expected prompt (a string) or messages (an array)'));
    const tokens = tokenIds(text);
    send(
      res,
      200,
      JSON.stringify({ count: countTokens(text), max_model_len: this.config.max_model_len, tokens, token_strs: null }),
      JSON_HEADERS,
    );
  }

  private modelsBody(): string {
    const { config } = this;
    const model = {
      id: config.model,
      object: 'model',
      created: Math.floor(this.readyAt / 1000),
      owned_by: 'loadgate-sim',
      root: config.model,
      parent: null,
      max_model_len: config.max_model_len,
    };
    return JSON.stringify({ object: 'list', data: [model] });
  }

  private gauges() {
    const { scheduler, engine } = this;
    const prefix = engine?.prefixCache() ?? { queries: 0, hits: 0 };
    return {
      model: this.config.model,
      running: scheduler?.running ?? 0,
      waiting: scheduler?.waiting ?? 0,
      kvUsage: scheduler?.kvUsage() ?? 0,
      prefixQueries: prefix.queries,
      prefixHits: prefix.hits,
      steps: engine?.steps ?? 0,
      busyMs: engine?.busyMs ?? 0,
    };
  }
}

function faultName(plan: FaultPlan): string | null {
  const names = [
    plan.shed && 'shed',
    plan.errorStatus !== undefined && `error=${plan.errorStatus}`,
    plan.stream,
    plan.headerDelayMs > 0 && `header_delay=${plan.headerDelayMs}`,
    plan.stallMs > 0 && `stall=${plan.stallMs}`,
    plan.slowloris && 'slowloris',
  ].filter(Boolean);
  return names.length ? names.join(',') : null;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function readJson(req: IncomingMessage, fail: (err: ApiError) => void, then: (body: unknown) => void): void {
  const parts: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) parts.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY_BYTES) return fail(new ApiError(413, `the request body exceeds ${MAX_BODY_BYTES} bytes`));
    let body: unknown;
    try {
      body = JSON.parse(parts.length === 1 ? parts[0].toString() : Buffer.concat(parts).toString());
    } catch (err) {
      return fail(new ApiError(400, `the request body is not valid JSON: ${(err as Error).message}`));
    }
    then(body);
  });
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
