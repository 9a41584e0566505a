import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, observeReadTurns } from '../../src/client/client.js';
import { buildRequestBody } from '../../src/client/openai.js';
import { startLoopProbe } from '../../src/metrics/loop-probe.js';
import { LoopTurnMeter, type ReadTurnSource } from '../../src/metrics/loop-turns.js';
import { now } from '../../src/time.js';
import { openaiStream, startScriptedServer } from '../fixtures/scripted-server.js';
import { RecordingSpy } from '../client/recording-spy.js';

test('the client reports each loop turn that read, with its reads and when the last was stamped; the meter counts turns and reads between start and stop', async () => {
  const server = await startScriptedServer(() => openaiStream({ ttftMs: 5, itlMs: 5, tokens: 20 }));
  const client = createClient({ baseUrl: server.baseUrl, api: 'chat', timeoutMs: 5_000 });
  const seen: { start: number; end: number; reads: number; last: number }[] = [];
  const stop = observeReadTurns((start, end, reads, last) => seen.push({ start, end, reads, last }));
  const meter = new LoopTurnMeter(observeReadTurns);
  try {
    const warm = new RecordingSpy();
    client.send(buildRequestBody({ api: 'chat', model: 'm', prompt: 'warm', maxTokens: 20, ignoreEos: true }), warm, 'warm');
    await warm.ended;
    await sleep(20);
    const before = seen.length;
    meter.start();
    const t0 = now();
    const rec = new RecordingSpy();
    client.send(buildRequestBody({ api: 'chat', model: 'm', prompt: 'hello', maxTokens: 20, ignoreEos: true }), rec, 'req');
    expect((await rec.ended).outcome).toBe('ok');
    await sleep(20);
    meter.stop();
    const observed = now() - t0;
    const turns = seen.slice(before);
    // Every read is counted: at least one per distinct stamp the content chunks got (chunks 5 ms
    // apart arrive in reads of their own, unless this busy process wrote several at once).
    const reads = turns.reduce((a, t) => a + t.reads, 0);
    expect(new Set(rec.contents.map((c) => c.t)).size).toBeGreaterThan(1);
    expect(reads).toBeGreaterThanOrEqual(new Set(rec.contents.map((c) => c.t)).size);
    for (const t of turns) {
      expect(t.reads).toBeGreaterThanOrEqual(1);
      expect(t.end).toBeGreaterThanOrEqual(t.last);
      expect(t.last).toBeGreaterThanOrEqual(t.start);
      if (t.reads === 1) expect(t.last).toBe(t.start);
    }
    expect(meter.turns.totalCount).toBe(turns.length);
    expect(meter.readTurns.totalCount).toBe(reads);
    expect(meter.observedMs).toBeGreaterThan(0);
    expect(meter.observedMs).toBeLessThanOrEqual(observed + 1);
    // Stopped: later turns are not counted.
    const after = new RecordingSpy();
    client.send(buildRequestBody({ api: 'chat', model: 'm', prompt: 'after', maxTokens: 20, ignoreEos: true }), after, 'after');
    await after.ended;
    expect(meter.readTurns.totalCount).toBe(reads);
  } finally {
    stop();
    meter.close();
    await client.close();
    await server.close();
  }
});

/** A meter whose turns the test tells it itself. */
function handFedMeter(): { meter: LoopTurnMeter; sink: Parameters<ReadTurnSource>[0] } {
  let told: Parameters<ReadTurnSource>[0] = () => undefined;
  const meter = new LoopTurnMeter((s) => {
    told = s;
    return () => undefined;
  });
  return { meter, sink: (...turn) => told(...turn) };
}

test('a turn counts its whole length once, and the span of its reads once per read (their place among them, the handling after)', () => {
  const { meter, sink } = handFedMeter();
  meter.start();
  sink(100, 110, 3, 102);
  sink(200, 201, 1, 200);
  meter.stop();
  expect(meter.turns.totalCount).toBe(2);
  expect(meter.turns.maxValue).toBeGreaterThanOrEqual(9_990);
  expect(meter.readTurns.totalCount).toBe(4);
  expect(meter.readTurns.maxValue).toBeLessThanOrEqual(2_001);
  expect(meter.readTurns.maxValue).toBeGreaterThanOrEqual(1_999);
  expect(meter.readTurns.minNonZeroValue).toBeGreaterThanOrEqual(1_999);
  expect(meter.readTurns.getValueAtPercentile(25)).toBe(0);
  meter.close();
});

test('before the window the meter rehearses: turns and lateness are tallied, then dropped when the window opens', () => {
  const { meter, sink } = handFedMeter();
  sink(0, 5, 2, 1);
  meter.lateness(4);
  expect([meter.turns.totalCount, meter.readTurns.totalCount, meter.late.totalCount]).toEqual([1, 2, 1]);
  expect(meter.observedMs).toBe(0);
  meter.start();
  expect([meter.turns.totalCount, meter.readTurns.totalCount, meter.late.totalCount]).toEqual([0, 0, 0]);
  sink(10, 11, 1, 10);
  meter.lateness(2);
  expect([meter.turns.totalCount, meter.readTurns.totalCount, meter.late.totalCount]).toEqual([1, 1, 1]);
  expect(meter.late.maxValue).toBe(2000);
  meter.close();
});

test('a meter stopped before its window opened keeps nothing of the warmup, and a later start does not reopen it', () => {
  const { meter, sink } = handFedMeter();
  sink(0, 5, 2, 1);
  meter.lateness(4);
  meter.stop();
  meter.start();
  sink(10, 11, 1, 10);
  meter.lateness(2);
  expect([meter.turns.totalCount, meter.readTurns.totalCount, meter.late.totalCount, meter.observedMs]).toEqual([0, 0, 0, 0]);
  meter.close();
});

test('lateness is counted only while the meter observes; closing it unsubscribes from the turns', () => {
  let subscribed = 0;
  const source: ReadTurnSource = () => {
    subscribed++;
    return () => subscribed--;
  };
  const meter = new LoopTurnMeter(source);
  expect(subscribed).toBe(1);
  meter.lateness(5);
  meter.start();
  meter.lateness(3);
  meter.lateness(0);
  meter.stop();
  meter.lateness(7);
  expect(meter.late.totalCount).toBe(2);
  expect(meter.late.maxValue).toBe(3000);
  meter.close();
  expect(subscribed).toBe(0);
});

test('the loop probe tells a stall as the ticks it swallowed, so lateness is sampled evenly in time', async () => {
  const late: number[] = [];
  const probe = startLoopProbe((ms) => late.push(ms));
  await sleep(25);
  const until = now() + 55;
  while (now() < until); // a 55 ms stall: the ticks due inside it are told as well
  await sleep(25);
  probe.stop();
  const worst = Math.max(...late);
  expect(worst).toBeGreaterThan(40);
  for (let k = 1; worst - 10 * k > 0; k++) expect(late.some((x) => Math.abs(x - (worst - 10 * k)) < 1e-6)).toBe(true);
});
