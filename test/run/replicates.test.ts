import { LOOPBACK_NETWORK_PROBES, NETWORK_WARMUP_PROBES } from '../../src/run/server-watch.js';
import { replicateSpec, runReplicatesMerged } from '../../src/run/replicates.js';
import { openaiStream, startScriptedServer, type ScriptedServer } from '../fixtures/scripted-server.js';
import { specFor } from './helpers.js';

let server: ScriptedServer;
afterEach(() => server?.close());

test('replicates run independent windows with fresh seeds and merge into one result with their spread', async () => {
  server = await startScriptedServer((req) =>
    req.url.endsWith('/models')
      ? { status: 200, steps: [{ send: '{"data":[]}' }, { end: true }] }
      : openaiStream({ ttftMs: 5, itlMs: 1, tokens: 5 }),
  );
  const resolved = specFor(server.baseUrl, 'rate: 40\nwarmup: 200ms\nsteady: 1s\ncooldown: 0s\nreplicates: 3');
  expect(replicateSpec(resolved, 1).spec.workload.seed).not.toBe(resolved.spec.workload.seed);
  expect(replicateSpec(resolved, 1).hash).toBe(resolved.hash);
  const seen: number[] = [];
  const merged = await runReplicatesMerged({ resolved }, resolved.spec.load.replicates, (i) => seen.push(i));
  expect(seen).toEqual([0, 1, 2]);
  expect((merged as { merge?: { mode: string; merged_from: number } }).merge).toMatchObject({ mode: 'replicates', merged_from: 3 });
  expect((merged as { replicates?: { count: number; cv: Record<string, number> } }).replicates?.count).toBe(3);
  expect(merged.load.window_s).toBeCloseTo(3, 1);
  expect(merged.spec_hash).toBe(resolved.hash);
  // Every request of the runs (each carries an x-request-id) is accounted for; the rest are each
  // replicate's readiness probe and network probes (GET /models, warm-up probes first on loopback,
  // as many as their time budget allowed).
  const probes = server.timings.filter((t) => t.id === undefined).length;
  expect(merged.requests.scheduled).toBe(server.requests - probes);
  expect(probes).toBeGreaterThanOrEqual(3 * (1 + LOOPBACK_NETWORK_PROBES + 1));
  expect(probes).toBeLessThanOrEqual(3 * (1 + NETWORK_WARMUP_PROBES + LOOPBACK_NETWORK_PROBES));
});

test('replicates of a conversation run are refused before the first request: per-turn figures are not merged', async () => {
  server = await startScriptedServer(() => openaiStream({ ttftMs: 5, itlMs: 1, tokens: 5 }));
  const resolved = specFor(server.baseUrl, 'rate: 2\nwarmup: 0s\nsteady: 1s\ncooldown: 0s');
  const sessions = {
    ...resolved,
    spec: {
      ...resolved.spec,
      workload: { ...resolved.spec.workload, sessions: { turns: { dist: 'fixed' as const, value: 2 }, think_time: '0s' } },
    },
  };
  await expect(runReplicatesMerged({ resolved: sessions }, 2)).rejects.toThrow(
    /^2 replicates with workload\.sessions: their per-turn figures cannot be merged; expected 1 replicate$/,
  );
  expect(server.requests).toBe(0);
});
