import { decodeHistogram, encodeHistogram, newHistogram, recordMs, summarizeMs } from '../../src/metrics/histogram.js';
import { Recorder } from '../../src/metrics/recorder.js';
import { OUTCOMES } from '../../src/client/types.js';

const slo = { ttft_ms: 100, tpot_ms: 10, e2e_ms: 1000 };

function recorder() {
  return new Recorder({ runId: 'test', runStart: 0, windowFromMs: 1000, windowToMs: 2000, slo });
}

/** Plays one request: sent at tSend, first content at tFirst, then tokens every itl ms. */
function play(rec: Recorder, id: number, tSched: number, tSend: number, tFirst: number, tokens: number, itl: number, usage = true) {
  const r = rec.open(id, tSched, 10, tokens);
  rec.markSent(r, tSend);
  r.onHeaders(tSend + 1, 200);
  for (let k = 0; k < tokens; k++) r.onContent(tFirst + k * itl, 'answer');
  if (usage) r.onUsage(10, tokens);
  r.onEnd(tFirst + (tokens - 1) * itl + 1, 'ok');
  return r;
}

describe('recorder', () => {
  test('TTFT and E2E count from the intended send time, TPOT and ITL as defined', () => {
    const rec = recorder();
    play(rec, 1, 1100, 1105, 1300, 11, 5);
    const ttft = summarizeMs(rec.h.ttft)!;
    expect(ttft.p50).toBeCloseTo(200, 0);
    expect(summarizeMs(rec.h.ttftFromSend)!.p50).toBeCloseTo(195, 0);
    expect(summarizeMs(rec.h.e2e)!.p50).toBeCloseTo(250, 0);
    expect(summarizeMs(rec.h.tpot)!.p50).toBeCloseTo(5, 1);
    expect(rec.h.itl.totalCount).toBe(10);
    expect(summarizeMs(rec.h.scheduleLag)!.p50).toBeCloseTo(5, 1);
  });

  test('a role-only or empty stream records no latency but still ends in its class', () => {
    const rec = recorder();
    const r = rec.open(1, 1100, 10, 5);
    rec.markSent(r, 1100);
    r.onEnd(1200, 'ok');
    expect(rec.h.ttft.totalCount).toBe(0);
    expect(rec.windowByClass.ok).toBe(1);
  });

  test('warmup and cooldown requests are counted but not measured', () => {
    const rec = recorder();
    play(rec, 1, 500, 500, 600, 3, 5);
    play(rec, 2, 2500, 2500, 2600, 3, 5);
    expect(rec.scheduled).toBe(2);
    expect(rec.byClass.ok).toBe(2);
    expect(rec.windowScheduled).toBe(0);
    expect(rec.windowDispatched).toBe(0);
    expect(rec.windowOk + rec.windowGood + rec.completedInWindow + rec.completedOutputTokens).toBe(0);
    expect(rec.inFlightPeak + rec.inFlightIntegral + rec.windowTimeInSystem).toBe(0);
    for (const [name, h] of Object.entries(rec.h)) expect([name, h.totalCount]).toEqual([name, 0]);
    for (const slice of rec.segments.h) for (const h of Object.values(slice)) expect(h.totalCount).toBe(0);
  });

  test('the warmup rehearses the window: its requests run through the same tallies, kept apart', () => {
    const rec = recorder();
    const rehearsal = (rec as unknown as { rehearsal: Recorder }).rehearsal;
    play(rec, 1, 500, 502, 600, 3, 5);
    // Every window tally of the warmup request, in the rehearsal's; the window's own stay empty.
    expect(rehearsal.windowScheduled).toBe(1);
    expect(rehearsal.windowDispatched).toBe(1);
    expect(rehearsal.windowOk).toBe(1);
    expect(rehearsal.windowGood).toBe(1);
    expect(rehearsal.inFlightPeak).toBe(1);
    expect(rehearsal.inFlightIntegral).toBeCloseTo(611 - 502, 6);
    expect(rehearsal.completedInWindow).toBe(1);
    for (const name of ['ttft', 'e2e', 'ttftEarliest', 'scheduleLag', 'poolWait', 'requestedPromptTokens', 'outputTokens'] as const)
      expect([name, rehearsal.h[name].totalCount]).toEqual([name, name === 'poolWait' ? 0 : 1]);
    expect(rehearsal.h.itl.totalCount).toBe(2);
    expect(rehearsal.segments.h.reduce((a, slice) => a + slice.ttft.totalCount, 0)).toBe(1);
    expect(rec.h.ttft.totalCount + rec.windowScheduled + rec.inFlightPeak).toBe(0);
    // A window request is the window's alone; one sent in the warmup that ends in the window adds
    // its time in flight inside the window, and its completion, to the window as before.
    play(rec, 2, 1500, 1500, 1600, 3, 5);
    play(rec, 3, 900, 900, 1000, 3, 5);
    expect(rec.h.ttft.totalCount).toBe(1);
    expect(rehearsal.h.ttft.totalCount).toBe(2);
    expect(rec.completedInWindow).toBe(2);
    expect(rec.inFlightIntegral).toBeCloseTo(111 + 11, 6);
    expect(rehearsal.inFlightIntegral).toBeCloseTo(109 + 100, 6);
  });

  test('goodput counts only requests meeting every SLO', () => {
    const rec = recorder();
    play(rec, 1, 1100, 1100, 1150, 10, 5); // meets all
    play(rec, 2, 1200, 1200, 1400, 10, 5); // TTFT 200 > 100
    play(rec, 3, 1300, 1300, 1350, 10, 20); // TPOT 20 > 10
    expect(rec.windowGood).toBe(1);
  });

  test('every request ends in exactly one class and the counts add up', () => {
    const rec = recorder();
    OUTCOMES.forEach((o, i) => {
      const r = rec.open(i, 1100 + i, 10, 10);
      if (o !== 'dropped') rec.markSent(r, 1100 + i);
      r.onEnd(1500, o, o === 'ok' ? undefined : `${o} detail`);
      r.onEnd(1600, 'ok'); // a second end is ignored
    });
    const total = Object.values(rec.byClass).reduce((a, b) => a + b, 0);
    expect(total).toBe(OUTCOMES.length);
    for (const o of OUTCOMES) expect(rec.byClass[o]).toBe(1);
    expect(rec.inFlight).toBe(0);
    expect(rec.errorSamples.size).toBe(OUTCOMES.length - 1);
  });

  test('output tokens come from usage when sent, else from counted chunks', () => {
    const rec = recorder();
    play(rec, 1, 1100, 1100, 1150, 4, 5, false);
    expect(rec.usageMissing).toBe(1);
    expect(rec.completedOutputTokens).toBe(4);
    const r = rec.open(2, 1200, 10, 10);
    rec.markSent(r, 1200);
    r.onContent(1250, 'answer');
    r.onContent(1260, 'answer');
    r.onUsage(10, 4); // server batched 4 tokens into 2 chunks
    r.onEnd(1270, 'ok');
    expect(rec.usageChunkMismatch).toBe(1);
    expect(summarizeMs(rec.h.tpot)!.min).toBeCloseTo(10 / 3, 1);
  });

  test('reasoning output counts for TTFT; the first answer token is kept separately', () => {
    const rec = recorder();
    const r = rec.open(1, 1100, 10, 10);
    rec.markSent(r, 1100);
    r.onContent(1150, 'reasoning');
    r.onContent(1180, 'answer');
    r.onEnd(1190, 'ok');
    expect(summarizeMs(rec.h.ttft)!.p50).toBeCloseTo(50, 0);
    expect(summarizeMs(rec.h.timeToFirstAnswer)!.p50).toBeCloseTo(80, 0);
  });
});

describe('histograms', () => {
  test('merging the encoded halves of a sample equals the histogram of the whole', () => {
    const whole = newHistogram();
    const a = newHistogram();
    const b = newHistogram();
    for (let i = 0; i < 5000; i++) {
      const v = 1 + ((i * 7919) % 100_000) / 10;
      recordMs(whole, v);
      recordMs(i % 2 ? a : b, v);
    }
    const merged = decodeHistogram(encodeHistogram(a));
    merged.add(decodeHistogram(encodeHistogram(b)));
    expect(summarizeMs(merged)).toEqual(summarizeMs(whole));
  });

  test('an empty histogram summarizes to null, never to zeros', () => {
    expect(summarizeMs(newHistogram())).toBeNull();
  });
});

describe('throughput', () => {
  test('counts completions inside the window by their end time, whenever they were scheduled', () => {
    const rec = recorder(); // window [1000, 2000)
    play(rec, 1, 900, 900, 950, 10, 10); // warmup-scheduled, ends at 1041: counts
    play(rec, 2, 1500, 1500, 1900, 20, 10); // window-scheduled, ends at 2091: after the window
    play(rec, 3, 1200, 1200, 1250, 5, 10); // inside, ends at 1291
    expect(rec.completedInWindow).toBe(2);
    expect(rec.completedOutputTokens).toBe(15);
    expect(rec.windowOk).toBe(2); // latency samples are still by intended send time
  });
});
