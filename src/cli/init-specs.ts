import { PROBE_SHAPE, type ServiceFloor, type TargetFacts } from './init-probe.js';

/** What a spec written by `loadgate init` is about. */
export interface SpecTarget {
  /** A real server's base URL, or "sim". */
  url: string;
  api: 'chat' | 'completions';
  apiKeyEnv?: string;
  /** Absent for sim: what init learned from the real target. */
  facts?: TargetFacts;
  /** The `# yaml-language-server: $schema=…` reference editors read. */
  schemaRef: string;
}

/** The rate and SLOs a spec starts from. */
export interface Suggestion {
  rate: number;
  ttftMs: number;
  tpotMs: number;
  e2eMs: number;
}

/** Requests in flight at the service floor that the suggested rate keeps (rate × E2E, Little's law): light load. */
export const IN_FLIGHT_AT_FLOOR = 4;
/**
 * Headroom of the suggested SLOs over the floor: TTFT grows most with load (queueing before
 * prefill), TPOT less (a fuller batch slows every decode step), so the factors differ.
 */
const TTFT_HEADROOM = 3;
const TPOT_HEADROOM = 2;

/** Rounds up to two significant digits, so a suggestion reads as a choice, not a measurement. */
function roundUp2(x: number): number {
  if (x <= 0) return 1;
  const step = 10 ** Math.max(0, Math.floor(Math.log10(x)) - 1);
  return Math.ceil(x / step) * step;
}

/** Rounds down to two significant digits (a rate must not be rounded up past what was derived). */
function roundDown2(x: number): number {
  const step = 10 ** (Math.floor(Math.log10(x)) - 1);
  return Number((Math.floor(x / step) * step).toPrecision(2));
}

/**
 * From the floor: SLOs with headroom over it, the E2E SLO the sum of its parts for the spec's
 * output length (TTFT + TPOT per further token), and the open-loop rate at which about
 * IN_FLIGHT_AT_FLOOR requests are in flight when each takes the floor's E2E.
 */
export function suggest(floor: ServiceFloor): Suggestion {
  const ttftMs = roundUp2(TTFT_HEADROOM * floor.ttftMs);
  const tpotMs = roundUp2(TPOT_HEADROOM * Math.max(floor.tpotMs, 1));
  const e2eMs = roundUp2(ttftMs + tpotMs * (PROBE_SHAPE.outputTokens - 1));
  const rate = Math.min(100, Math.max(0.1, roundDown2(IN_FLIGHT_AT_FLOOR / (Math.max(floor.e2eMs, 1) / 1000))));
  return { rate, ttftMs, tpotMs, e2eMs };
}

/**
 * The simulator's starting point: well below its default engine's saturation, and with enough
 * requests in the short window for a p95 to be judged (≥ 200 samples).
 */
const SIM_SUGGESTION: Suggestion = { rate: 25, ttftMs: 500, tpotMs: 50, e2eMs: 10_000 };

/** The kinds of spec init writes: the gate's benchmark, a soak, the release's stricter gate, a capacity sweep. */
export type SpecKind = 'chat' | 'soak' | 'release' | 'capacity';

/** The windows of each kind: short against the simulator (a demonstration), realistic against a server. */
const WINDOWS: Record<SpecKind, { sim: string; real: string }> = {
  chat: { sim: 'warmup: 2s\n  steady: 10s\n  cooldown: 1s', real: 'warmup: 10s\n  steady: 60s\n  cooldown: 5s' },
  soak: { sim: 'warmup: 2s\n  steady: 12s\n  cooldown: 0s', real: 'warmup: 1m\n  steady: 30m\n  cooldown: 10s' },
  release: { sim: 'warmup: 2s\n  steady: 20s\n  cooldown: 1s', real: 'warmup: 30s\n  steady: 5m\n  cooldown: 10s' },
  capacity: { sim: 'warmup: 1s\n  steady: 4s\n  cooldown: 0s', real: 'warmup: 10s\n  steady: 60s\n  cooldown: 5s' },
};

const PURPOSE: Record<SpecKind, string> = {
  chat: 'The pull-request gate: a short open-loop run, compared with the baseline recorded on main.',
  soak: 'The nightly soak: a long run judged in segments; the gate fails when latency drifts from the first segment to the last.',
  release: 'The release sign-off: a longer window and stricter rules than the pull-request gate.',
  capacity: 'The release capacity sweep (loadgate sweep): the knee, saturation and capacity at the SLO.',
};

/** Sections after slo: the soak's drift rule, the release's stricter rules, the sweep. */
const TAIL: Record<SpecKind, string[]> = {
  chat: [],
  soak: ['gate:', '  soak: { max_drift_pct: 10 }   # fail when a percentile drifts by more than 10 % beyond noise'],
  release: [
    'gate:',
    '  confidence: 0.99',
    '  latency:',
    '    ttft_p95: { max_increase_pct: 5, max_increase_ms: 10 }',
    '    tpot_p95: { max_increase_pct: 5, max_increase_ms: 1 }',
    '  slo:',
    '    http_5xx_rate: { max: 0.001 }',
    '    goodput_fraction: { min: 0.99 }',
  ],
  capacity: [
    'sweep:',
    '  auto: { growth: 2 }      # a light-load probe, then rates × 2 until saturation, then bisection',
    '  metric: ttft',
    '  slo_target: 0.99         # capacity at SLO: the highest rate with ≥ 99 % good requests',
    '  gate:',
    '    capacity_at_slo: { max_decrease_pct: 5 }',
  ],
};

/** The commented spec of one kind for the target. */
export function specText(kind: SpecKind, t: SpecTarget): string {
  const sim = t.url === 'sim';
  const s = t.facts ? suggest(t.facts.floor) : SIM_SUGGESTION;
  const lines = [
    `# yaml-language-server: $schema=${t.schemaRef}`,
    `# ${PURPOSE[kind]}`,
    ...headerNotes(t, s),
    `name: ${kind}`,
    'target:',
    `  url: ${sim ? "sim                     # the embedded simulator; set a real server's base URL here" : t.url}`,
    `  api: ${t.api}`,
    ...(t.facts ? [`  model: ${JSON.stringify(t.facts.model)}`] : []),
    ...(t.apiKeyEnv ? [`  api_key_env: ${t.apiKeyEnv}      # the key is read from this variable, never written here`] : []),
    'workload:',
    '  seed: 1',
    `  input_tokens: { dist: normal, mean: ${PROBE_SHAPE.inputWords}, stddev: 64, min: 16, max: 1024 }`,
    `  output_tokens: ${PROBE_SHAPE.outputTokens}`,
    `  calibrate: ${calibrateLine(t)}`,
    'load:',
    '  arrival: poisson',
    `  rate: ${s.rate}                ${t.facts ? `# req/s: about ${IN_FLIGHT_AT_FLOOR} in flight at the service floor` : '# req/s, open loop'}`,
    `  ${WINDOWS[kind][sim ? 'sim' : 'real']}`,
    ...(kind === 'soak' ? [`  soak: { segments: ${sim ? 3 : 6} }     # judged in segments: the first against the last`] : []),
    'slo:',
    ...sloLines(s),
    ...TAIL[kind],
  ];
  return `${lines.join('\n')}\n`;
}

function sloLines(s: Suggestion): string[] {
  return [`  ttft_ms: ${s.ttftMs}`, `  tpot_ms: ${s.tpotMs}`, `  e2e_ms: ${s.e2eMs}`];
}

function calibrateLine(t: SpecTarget): string {
  if (!t.facts) return 'auto                  # the simulator counts one token per word';
  const why =
    t.facts.calibrate === 'tokenize'
      ? `the server counts tokens: ${t.facts.calibrationSource}`
      : t.facts.calibrate === 'probe'
        ? 'no tokenize endpoint; requests with max_tokens 1 read usage.prompt_tokens'
        : `nothing counted tokens (${t.facts.calibrationSource}); one token per word is assumed`;
  return `${t.facts.calibrate}    # ${why.replace(/\s+/g, ' ')}`;
}

/** Where the rate and SLOs come from, said in the spec so nobody mistakes them for requirements. */
function headerNotes(t: SpecTarget, s: Suggestion): string[] {
  if (!t.facts)
    return [
      '# Written by loadgate init for the embedded simulator: replace target.url (and add model,',
      '# api_key_env) to benchmark a real server, or run `loadgate init --target-url URL` against it.',
    ];
  const f = t.facts.floor;
  const ms = (x: number) => x.toFixed(1);
  return [
    `# Written by loadgate init from ${f.requests} requests sent one at a time to ${t.url}`,
    `# (${PROBE_SHAPE.inputWords}-word prompts, ${PROBE_SHAPE.outputTokens} output tokens). Its service floor, the slowest of them:`,
    `# TTFT ${ms(f.ttftMs)} ms, TPOT ${ms(f.tpotMs)} ms, E2E ${ms(f.e2eMs)} ms. The SLOs are that floor with headroom`,
    `# (TTFT × ${TTFT_HEADROOM}, TPOT × ${TPOT_HEADROOM}, E2E = TTFT + TPOT per further token) and the rate keeps about`,
    `# ${IN_FLIGHT_AT_FLOOR} requests in flight at the floor (rate × E2E, Little's law): suggestions to start from,`,
    `# not requirements. Set them to what your users need; \`loadgate sweep\` finds the real capacity.`,
    `# Suggested: rate ${s.rate} req/s, TTFT ≤ ${s.ttftMs} ms, TPOT ≤ ${s.tpotMs} ms, E2E ≤ ${s.e2eMs} ms.`,
  ];
}
