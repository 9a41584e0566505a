import { maxOf } from '../numbers.js';
import { createClient } from '../client/client.js';
import { buildRequestBody } from '../client/openai.js';
import type { Outcome } from '../client/types.js';
import type { ResolvedSpec } from '../spec/types.js';
import { now } from '../time.js';
import { findCounter } from '../workload/calibrate.js';
import { requestText } from '../workload/prompts.js';
import { waitForReady } from '../run/ready.js';
import { withServedModel } from '../run/served-model.js';

/** What `loadgate init` learned from a real target before writing a spec for it. */
export interface TargetFacts {
  /** The model the spec will name: the one asked for (checked against the list) or the only one listed. */
  model: string;
  /** A notice for the user when the model was taken from the server's list. */
  modelNotice?: string;
  /** The workload.calibrate value the target supports: tokenize when it counts tokens, else probe, else off. */
  calibrate: 'tokenize' | 'probe' | 'off';
  /** Who counts tokens, in words, for the spec's comment. */
  calibrationSource: string;
  floor: ServiceFloor;
}

/** The target's service floor: each figure the slowest of a few requests sent one at a time. */
export interface ServiceFloor {
  requests: number;
  ttftMs: number;
  tpotMs: number;
  e2eMs: number;
}

/** The probe requests' shape: the spec's own mean lengths, so the floor is the workload's. */
export const PROBE_SHAPE = { requests: 4, inputWords: 256, outputTokens: 64 };
/** The readiness wait of init: a server that is not up within this is named, not waited for. */
const READY_MS = 15_000;

/**
 * Learns, from the target in `draft` (a spec naming its URL, api, key and the model asked for):
 * the model, the token-calibration method it supports, and its service floor.
 */
export async function probeTarget(draft: ResolvedSpec): Promise<TargetFacts> {
  const { url, api } = draft.spec.target;
  const headers = draft.apiKey ? { ...draft.headers, authorization: `Bearer ${draft.apiKey}` } : { ...draft.headers };
  const ready = await waitForReady(url, READY_MS, headers, { auth: draft.apiKey ? { keyEnv: draft.spec.target.api_key_env } : {} });
  if ('interrupted' in ready) throw new Error('interrupted before the target answered');
  const served = withServedModel(draft, ready.models, url); // the run's own check: did-you-mean included
  const model = served.resolved.spec.target.model!;
  const target = { baseUrl: url, api, model, headers, timeoutMs: draft.requestTimeoutMs };
  const counter = await findCounter('auto', target);
  const calibrate = 'failed' in counter ? 'off' : counter.method;
  const calibrationSource = 'failed' in counter ? `no counter answered (${counter.failed})` : counter.source;
  const floor = await measureFloor(draft, model, headers);
  return { model, modelNotice: served.notice, calibrate, calibrationSource, floor };
}

interface Probe {
  outcome: Outcome;
  detail?: string;
  ttftMs: number;
  e2eMs: number;
  tokens: number;
}

/** Sends the probe requests one after another (no queueing: each sees an idle server) and keeps the slowest figures. */
async function measureFloor(draft: ResolvedSpec, model: string, headers: Record<string, string>): Promise<ServiceFloor> {
  const { url, api } = draft.spec.target;
  const client = createClient({ baseUrl: url, api, headers, timeoutMs: draft.requestTimeoutMs });
  const probes: Probe[] = [];
  try {
    for (let i = 0; i < PROBE_SHAPE.requests; i++) {
      const prompt = requestText(0x1417, i, PROBE_SHAPE.inputWords);
      const body = buildRequestBody({ api, model, prompt, maxTokens: PROBE_SHAPE.outputTokens, ignoreEos: true });
      const p = await probeOnce(client, body, `init-probe-${i}`);
      if (p.outcome !== 'ok')
        throw new Error(
          `probe request ${i + 1} to ${url} ended ${p.outcome}${p.detail ? ` (${p.detail})` : ''}; expected a streamed answer (check --api and --model)`,
        );
      probes.push(p);
    }
  } finally {
    await client.close();
  }
  const ttftMs = maxOf(probes.map((p) => p.ttftMs));
  const e2eMs = maxOf(probes.map((p) => p.e2eMs));
  // TPOT as the gate reads it: the decode time spread over the tokens after the first.
  const tpotMs = maxOf(probes.map((p) => (p.tokens > 1 ? (p.e2eMs - p.ttftMs) / (p.tokens - 1) : 0)));
  // To 0.1 ms, as the spec's comments state the floor: the suggested SLOs are then reproducible from the text.
  const tenth = (x: number) => Math.round(x * 10) / 10;
  return { requests: probes.length, ttftMs: tenth(ttftMs), tpotMs: tenth(tpotMs), e2eMs: tenth(e2eMs) };
}

function probeOnce(client: ReturnType<typeof createClient>, body: string, id: string): Promise<Probe> {
  return new Promise((resolve) => {
    const sent = now();
    let first: number | undefined;
    let events = 0;
    let usage: number | undefined;
    client.send(
      body,
      {
        onWritten: () => {},
        onReconnect: () => {},
        onHeaders: () => {},
        onContent: (t) => {
          first ??= t;
          events++;
        },
        onUsage: (_prompt, completion) => (usage = completion),
        onEnd: (t, outcome, detail) => resolve({ outcome, detail, ttftMs: (first ?? t) - sent, e2eMs: t - sent, tokens: usage ?? events }),
      },
      id,
    );
  });
}
