import { validateSimConfig } from '../../src/sim/config.js';
import { Drift } from '../../src/sim/drift.js';
import { launchSim } from '../../src/sim/launch.js';

test('drift grows every compute time linearly from listen; none without it', () => {
  const d = new Drift(0.2, 1000);
  expect(d.factor(1000)).toBe(1);
  expect(d.factor(1000 + 60_000)).toBeCloseTo(1.2, 12);
  expect(d.factor(1000 + 30_000)).toBeCloseTo(1.1, 12);
  expect(d.factor(0)).toBe(1); // before listen: no negative drift
  expect(new Drift(0, 0).factor(1e9)).toBe(1);
});

test('sim config checks drift and fail_from_ms in one line', () => {
  expect(validateSimConfig({ drift: { per_minute: 0.5 }, fail_from_ms: 100 })).toMatchObject({
    drift: { per_minute: 0.5 },
    fail_from_ms: 100,
  });
  expect(() => validateSimConfig({ drift: { per_minute: -1 } })).toThrow('sim config: drift.per_minute is -1; expected a number ≥ 0');
  expect(() => validateSimConfig({ drift: {} })).toThrow('sim config: drift.per_minute is missing');
  expect(() => validateSimConfig({ fail_from_ms: 'soon' })).toThrow(/fail_from_ms is "soon"; expected a number ≥ 0/);
});

test('a paced server with drift answers later the longer it runs (its own record); fail_from_ms breaks it', async () => {
  const sim = await launchSim({
    mode: 'paced',
    ttft_ms: 100,
    itl_ms: 1,
    drift: { per_minute: 60 },
    fail_from_ms: 1500,
    output_tokens: { dist: 'fixed', value: 2 },
  });
  try {
    const ask = async (id: string) => {
      const res = await fetch(`${sim.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': id },
        body: JSON.stringify({ model: 'sim-8b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }),
      });
      await res.text();
      return res.status;
    };
    expect(await ask('early')).toBe(200);
    await new Promise((r) => setTimeout(r, 600));
    expect(await ask('later')).toBe(200);
    const records = (await (await fetch(`${sim.origin}/sim/requests`)).json()) as { id: string; admitted: number; first_token: number }[];
    const ttft = (id: string) => {
      const r = records.find((x) => x.id === id)!;
      return r.first_token - r.admitted;
    };
    // +60 per minute is +1 per second: TTFT 100 ms × (1 + elapsed s) — at least 60 ms more 0.6 s later.
    expect(ttft('early')).toBeGreaterThanOrEqual(100);
    expect(ttft('later') - ttft('early')).toBeGreaterThan(55);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await ask('broken')).toBe(500);
  } finally {
    await sim.stop();
  }
}, 15_000);
