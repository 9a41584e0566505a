import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEEP_ALIVE_DISABLED_REASON } from '../../src/client/keep-alive.js';
import { readResult } from '../../src/result/load.js';
import { mergeResults } from '../../src/result/merge.js';
import type { Result } from '../../src/result/types.js';
import { synthesize } from './synthetic.js';

const dir = mkdtempSync(join(tmpdir(), 'loadgate-connections-'));
const save = (r: unknown, name: string) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(r));
  return path;
};

/** Distinct run ids, so no merge takes one run for two. */
let runs = 0;
function withConnections(r: Result, reconnects: number, disabled: boolean, closed: number, observed: number): Result {
  return {
    ...r,
    run_id: `run${++runs}`,
    requests: {
      ...r.requests,
      reconnects,
      keep_alive: {
        disabled,
        responses_observed: observed,
        server_closed: closed,
        ...(disabled ? { reason: KEEP_ALIVE_DISABLED_REASON } : {}),
      },
    },
  };
}

test('a built result carries the recorder count and the schema accepts it', () => {
  const r = synthesize({ n: 50 });
  expect(r.requests.reconnects).toBe(0);
  const back = readResult(save(withConnections(r, 3, true, 4, 5), 'new.json'));
  expect(back.requests.reconnects).toBe(3);
  expect(back.requests.keep_alive).toEqual({ disabled: true, responses_observed: 5, server_closed: 4, reason: KEEP_ALIVE_DISABLED_REASON });
});

test('a result made before reconnects, keep_alive and the cancelled class still loads, cancelled read as 0', () => {
  const r = synthesize({ n: 50 });
  const old = structuredClone(r) as unknown as {
    requests: Record<string, unknown> & { by_class: Record<string, number>; window: { by_class: Record<string, number> } };
  };
  delete old.requests.reconnects;
  delete old.requests.keep_alive;
  delete old.requests.by_class.cancelled;
  delete old.requests.window.by_class.cancelled;
  const back = readResult(save(old, 'old.json'));
  expect(back.requests.reconnects).toBeUndefined();
  expect(back.requests.by_class.cancelled).toBe(0);
  expect(back.requests.window.by_class.cancelled).toBe(0);
});

test('a bad keep_alive is refused with its path', () => {
  const r = withConnections(synthesize({ n: 50 }), 1, false, 0, 2) as unknown as { requests: { keep_alive: Record<string, unknown> } };
  r.requests.keep_alive.server_closed = -1;
  expect(() => readResult(save(r, 'bad.json'))).toThrow(/\/requests\/keep_alive\/server_closed must be >= 0/);
});

test('merging adds the counts; keep-alive counts as disabled when any input disabled it', () => {
  const a = withConnections(synthesize({ n: 50, seed: 1 }), 2, false, 1, 40);
  const b = withConnections(synthesize({ n: 50, seed: 2 }), 5, true, 4, 5);
  const merged = mergeResults([a, b], { mode: 'shards' });
  expect(merged.requests.reconnects).toBe(7);
  expect(merged.requests.keep_alive).toEqual({
    disabled: true,
    responses_observed: 45,
    server_closed: 5,
    reason: KEEP_ALIVE_DISABLED_REASON,
  });
  const neither = mergeResults([withConnections(a, 0, false, 0, 3), withConnections(a, 1, false, 0, 4)]);
  expect(neither.requests.keep_alive).toEqual({ disabled: false, responses_observed: 7, server_closed: 0 });
  expect(neither.requests.reconnects).toBe(1);
});

test('merging older results without the fields leaves them out', () => {
  const older = (seed: number) => {
    const r = { ...synthesize({ n: 50, seed }), run_id: `old${seed}` };
    delete r.requests.reconnects;
    return r;
  };
  const merged = mergeResults([older(1), older(2)]);
  expect(merged.requests.reconnects).toBeUndefined();
  expect(merged.requests.keep_alive).toBeUndefined();
});
