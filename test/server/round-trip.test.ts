import { runBenchmark } from '../../src/run/run.js';
import { parseSpec } from '../../src/spec/load.js';
import { networkText } from '../../src/report/server-format.js';
import { LOOPBACK_NETWORK_PROBES, NETWORK_WARMUP_PROBES } from '../../src/run/server-watch.js';
import { openaiStream, startScriptedServer, type ScriptedServer } from '../fixtures/scripted-server.js';
import { startDelayProxy, type DelayProxy } from '../fixtures/delay-proxy.js';

const spec = (baseUrl: string) =>
  parseSpec(
    `name: round-trip
target:
  url: ${baseUrl}
  model: test-model
  metrics_url: false
workload:
  seed: 5
  calibrate: off
  input_tokens: 16
  output_tokens: 5
load:
  rate: 10
  arrival: constant
  warmup: 500ms
  steady: 2s
  cooldown: 0s
`,
    'test.yml',
    {},
  );

let server: ScriptedServer | undefined;
let proxy: DelayProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
});

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

test('across a proxy that delays every chunk each way, the request round trip is the injected delay and TTFT grows by it; connect stays local', async () => {
  const ONE_WAY_MS = 20;
  server = await startScriptedServer((req) =>
    req.url.endsWith('/models')
      ? { status: 200, steps: [{ send: '{"data":[]}' }, { end: true }] }
      : openaiStream({ ttftMs: 15, itlMs: 2, tokens: 5 }),
  );
  const direct = await runBenchmark({ resolved: spec(server.baseUrl) });
  const { port } = new URL(server.baseUrl);
  proxy = await startDelayProxy({ host: '127.0.0.1', port: Number(port) }, ONE_WAY_MS);
  const delayed = await runBenchmark({ resolved: spec(`${proxy.origin}/v1`) });

  // What the proxy actually held each chunk, both ways (timers fire late, or up to a millisecond early by rounding).
  const injected = mean(proxy.held.up) + mean(proxy.held.down);
  expect(injected).toBeGreaterThan(2 * (ONE_WAY_MS - 1));
  const rtt = delayed.network!.rtt_ms!.p50;
  const localRtt = direct.network!.rtt_ms!.p50;
  expect(Math.abs(rtt - injected)).toBeLessThanOrEqual(0.15 * injected);
  expect(localRtt).toBeLessThan(0.15 * injected);

  // TTFT grows by the round trip: the request goes up once, the first token comes down once.
  const growth = delayed.metrics.ttft_ms!.p50 - direct.metrics.ttft_ms!.p50;
  expect(Math.abs(growth - injected)).toBeLessThanOrEqual(0.15 * injected);

  // The proxy accepts at once on loopback: the TCP connect figure is the local one, not the delayed round trip.
  expect(delayed.network!.connect_ms!.p50).toBeLessThan(0.15 * injected);
  expect(delayed.network!.tls_ms).toBeUndefined();

  // The report says which figure is which.
  const text = networkText(delayed)!;
  expect(text).toMatch(
    /^request round trip \(GET \/models on an open connection, to its first byte\) p50 [\d.]+ ms, p99 [\d.]+ ms — the network's share of each TTFT · TCP connect p50 [\d.]+ ms, p99 [\d.]+ ms — paid once per new connection/,
  );
  // A loopback target: warm-up probes went first, and the report says they were not counted;
  // behind the proxy's round trip they stopped at their time budget, short of all of them.
  expect([direct.network!.probes, direct.network!.warmup_probes]).toEqual([LOOPBACK_NETWORK_PROBES, NETWORK_WARMUP_PROBES]);
  expect(networkText(direct)).toContain(
    `(${LOOPBACK_NETWORK_PROBES} probes before the warmup, after ${NETWORK_WARMUP_PROBES} not counted)`,
  );
  const delayedWarmup = delayed.network!.warmup_probes ?? 0;
  expect(delayedWarmup).toBeLessThan(NETWORK_WARMUP_PROBES);
  expect(text).toContain(`(${LOOPBACK_NETWORK_PROBES} probes before the warmup, after ${delayedWarmup} not counted)`);
});
