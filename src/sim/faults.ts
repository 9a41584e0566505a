import type { SimConfig } from './config.js';
import { seededRandom } from './random.js';
import { ApiError } from './request.js';

/** `hang`: the stream stops mid-way and the response never ends (a server stuck writing); the client must give up. */
export type StreamFault = 'stream_error' | 'truncate' | 'malformed' | 'reset' | 'hang';

/** Names accepted by the `x-sim-fault` header: `name` or `name=value`, comma-separated. */
const FAULT_NAMES = [
  'error',
  'shed',
  'stream_error',
  'truncate',
  'malformed',
  'reset',
  'hang',
  'slowloris',
  'header_delay',
  'stall',
] as const;

/** What goes wrong with one request. */
export interface FaultPlan {
  /** Answer at once with this status instead of serving (error_rate, or `error=503`). */
  errorStatus?: number;
  /** Shed with 429 + Retry-After whatever the queue (max_queue sheds on its own). */
  shed: boolean;
  stream?: StreamFault;
  /** Where the stream fault strikes, as a fraction of the output in [0, 1). */
  streamAt: number;
  headerDelayMs: number;
  /** Start an engine-wide stall of this length on arrival. */
  stallMs: number;
  /** Send the response headers, then nothing, ever: only the client's timeout ends it. Header-only. */
  slowloris: boolean;
}

/**
 * Draws each request's faults from the seed. Every request consumes the same three draws
 * whatever it gets, so the plan of the n-th request depends only on the seed and n.
 * The five exclusive faults share one draw, so their rates add up.
 */
export class Faults {
  private readonly random: () => number;

  constructor(private readonly c: SimConfig) {
    this.random = seededRandom(c.seed ^ 0x5eed_fa17);
  }

  plan(header: string | undefined): FaultPlan {
    const c = this.c;
    const u = this.random();
    const plan: FaultPlan = {
      shed: false,
      streamAt: this.random(),
      headerDelayMs: this.random() < c.header_delay_rate ? c.header_delay_ms : 0,
      stallMs: 0,
      slowloris: false,
    };
    let edge = c.error_rate;
    if (u < edge) plan.errorStatus = c.error_statuses[Math.floor((u / edge) * c.error_statuses.length)];
    else if (u < (edge += c.stream_error_rate)) plan.stream = 'stream_error';
    else if (u < (edge += c.truncate_rate)) plan.stream = 'truncate';
    else if (u < (edge += c.malformed_rate)) plan.stream = 'malformed';
    else if (u < edge + c.reset_rate) plan.stream = 'reset';
    if (header) this.applyHeader(plan, header);
    return plan;
  }

  private applyHeader(plan: FaultPlan, header: string): void {
    for (const item of header.split(',')) {
      const [name, raw] = item.trim().split('=');
      const value = raw === undefined ? undefined : Number(raw);
      if (value !== undefined && !(value >= 0)) throw new ApiError(400, `x-sim-fault: ${item.trim()} has a bad value`);
      switch (name) {
        case 'error':
          plan.errorStatus = value ?? this.c.error_statuses[0];
          break;
        case 'shed':
          plan.shed = true;
          break;
        case 'stream_error':
        case 'truncate':
        case 'malformed':
        case 'reset':
        case 'hang':
          plan.stream = name;
          if (value !== undefined) plan.streamAt = Math.min(value, 0.999);
          break;
        case 'slowloris':
          plan.slowloris = true;
          break;
        case 'header_delay':
          plan.headerDelayMs = value ?? (this.c.header_delay_ms || 1000);
          break;
        case 'stall':
          plan.stallMs = value ?? this.c.stall?.duration_ms ?? 1000;
          break;
        default:
          throw new ApiError(400, `x-sim-fault: unknown fault "${name}"; expected one of ${FAULT_NAMES.join(', ')}`);
      }
    }
  }
}

/** After which output token (1-based) a stream fault strikes: at least one token always gets through. */
export function faultToken(streamAt: number, outputTokens: number): number {
  return outputTokens <= 1 ? 1 : 1 + Math.floor(streamAt * (outputTokens - 1));
}
