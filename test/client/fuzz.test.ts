/**
 * The SSE framer and the chunk scanner over thousands of generated inputs never throw
 * and never hang; the framer's events do not depend on how the bytes were split into reads,
 * and the scanner agrees with JSON.parse on what is malformed and on what it finds.
 */
import fc from 'fast-check';
import { MALFORMED, newChunkFindings, OK, scanChunk, UNUSUAL } from '../../src/client/chunk-scan.js';
import { SseFramer } from '../../src/client/sse.js';
import { cpuMs } from '../fixtures/cpu-time.js';

const SEED = 16_11;
/** CPU time (cpuMs) for framing or scanning one input: far more than it takes; a hang shows here, not as a stuck run. */
const PER_INPUT_MS = 200;

function frame(chunks: Uint8Array[]): string[] {
  const events: string[] = [];
  const framer = new SseFramer({
    onEvent: (data, start, end, isError) => events.push(`${isError ? 'error:' : ''}${data.toString('utf8', start, end)}`),
    onOversize: () => events.push('oversize'),
  });
  const t0 = cpuMs();
  for (const c of chunks) framer.push(c);
  framer.end();
  expect(cpuMs() - t0).toBeLessThan(PER_INPUT_MS);
  return events;
}

/** The bytes cut at the given points (sorted, deduplicated): the same stream in other reads. */
function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.subarray(prev, c));
    prev = c;
  }
  return out;
}

const sseish = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'data:',
        'data: ',
        'event: error',
        'event:',
        ':',
        'id: 1',
        'retry: 5',
        '\n',
        '\r',
        '\r\n',
        '\n\n',
        '[DONE]',
        '{"a":1}',
        '\uFEFF',
        ' ',
      ),
      fc.string({ maxLength: 12 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => Buffer.from(parts.join('')));
const anyBytes = fc.uint8Array({ maxLength: 400 }).map((a) => Buffer.from(a));

describe('the SSE framer', () => {
  test('never throws or hangs, and gives the same events however the stream is split into reads', () => {
    fc.assert(
      fc.property(fc.oneof(sseish, anyBytes), fc.array(fc.nat(), { maxLength: 12 }), (bytes, cuts) => {
        expect(frame(split(bytes, cuts))).toEqual(frame([bytes]));
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });

  test('a well-formed stream of data events comes out event for event, whatever the line endings', () => {
    const payload = fc.string({ maxLength: 30 }).filter((s) => !/[\r\n]/.test(s));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(payload, fc.boolean()), { maxLength: 10 }),
        fc.constantFrom('\n', '\r', '\r\n'),
        fc.array(fc.nat(), { maxLength: 8 }),
        (events, eol, cuts) => {
          const text = events.map(([data, isError]) => `${isError ? `event: error${eol}` : ''}data: ${data}${eol}${eol}`).join('');
          expect(frame(split(Buffer.from(text), cuts))).toEqual(events.map(([data, isError]) => `${isError ? 'error:' : ''}${data}`));
        },
      ),
      { seed: SEED, numRuns: 2000 },
    );
  });
});

function scan(bytes: Uint8Array): number {
  const t0 = cpuMs();
  const status = scanChunk(bytes, 0, bytes.length, newChunkFindings());
  expect(cpuMs() - t0).toBeLessThan(PER_INPUT_MS);
  expect([OK, MALFORMED, UNUSUAL]).toContain(status);
  return status;
}

const parsesAsObject = (text: string) => {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
};

describe('the chunk scanner', () => {
  test('never throws or hangs on arbitrary bytes', () => {
    fc.assert(
      fc.property(anyBytes, (bytes) => void scan(bytes)),
      { seed: SEED, numRuns: 4000 },
    );
  });

  // UNUSUAL hands the text to JSON.parse (the caller's fallback), so it may stop before seeing a later error.
  test('never OK for what JSON.parse rejects (or is not an object), never MALFORMED for what it accepts (JSON, and JSON with random edits)', () => {
    const json = fc.oneof(
      fc.json({ maxDepth: 4 }),
      fc.object({ maxDepth: 3 }).map((o) => JSON.stringify(o)),
    );
    const edited = fc
      .tuple(json, fc.nat(), fc.nat({ max: 3 }), fc.constantFrom('', '"', '{', '}', ',', ':', '\\', '1', 'e', '-', ' ', '\u00e9', 'null'))
      .map(([t, at, del, ins]) => t.slice(0, at % (t.length + 1)) + ins + t.slice((at % (t.length + 1)) + del));
    fc.assert(
      fc.property(fc.oneof(json, edited), (text) => {
        const status = scan(Buffer.from(text));
        if (parsesAsObject(text)) expect(status).not.toBe(MALFORMED);
        else expect(status).not.toBe(OK);
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });

  test('an OK scan of a streamed chat or completions chunk finds what JSON.parse finds', () => {
    const content = fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant(''), fc.string({ maxLength: 8 }), fc.integer());
    const chunk = fc.record(
      {
        id: fc.string({ maxLength: 6 }),
        choices: fc.oneof(
          fc.constant([]),
          fc.tuple(
            fc.record(
              {
                index: fc.nat(3),
                delta: fc.oneof(
                  fc.constant(null),
                  fc.record({ content, reasoning_content: content, role: fc.constant('assistant') }, { requiredKeys: [] }),
                ),
                text: content,
              },
              { requiredKeys: [] },
            ),
          ),
        ),
        usage: fc.oneof(
          fc.constant(null),
          fc.record(
            { completion_tokens: fc.oneof(fc.nat(10_000), fc.constant(null)), prompt_tokens: fc.nat(10_000) },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(chunk, (c) => {
        const f = newChunkFindings();
        if (scanChunk(Buffer.from(JSON.stringify(c)), 0, Buffer.byteLength(JSON.stringify(c)), f) !== OK) return;
        const choice = c.choices?.[0];
        const nonEmpty = (v: unknown) => typeof v === 'string' && v.length > 0;
        expect(f.hasDelta).toBe(choice?.delta !== undefined && choice.delta !== null);
        expect(f.answer).toBe(nonEmpty(choice?.delta?.content));
        expect(f.reasoning).toBe(nonEmpty(choice?.delta?.reasoning_content));
        expect(f.text).toBe(nonEmpty(choice?.text));
        const completion = c.usage?.completion_tokens;
        expect(f.completionTokens).toBe(typeof completion === 'number' ? completion : null);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });
});

/**
 * A server's numbers and bytes through the event reader into the recorder, the way a request
 * hands them on (src/client/client.ts StreamRequest.onEvent), then the result assembled: it
 * always is, and it always loads back. Token counts are arbitrary (1e16, -1, 0.5, 1e308), as
 * are the arrival times of the events.
 */
describe('the recorder under arbitrary server numbers', () => {
  const count = fc.oneof(
    fc.nat(2000),
    fc.constantFrom(1e9, 1e9 + 1, 1e12, 1e16, 1e308, -1, -0, 0.5, 2 ** 53, Number.MAX_SAFE_INTEGER + 2),
    fc.double({ noNaN: true }),
  );
  const chunkText = fc.oneof(
    fc
      .tuple(count, count)
      .map(([c, p]) => `{"choices":[],"usage":{"completion_tokens":${JSON.stringify(c)},"prompt_tokens":${JSON.stringify(p)}}}`),
    fc
      .tuple(fc.string({ maxLength: 6 }), count)
      .map(([t, c]) => `{"choices":[{"delta":{"content":${JSON.stringify(t)}}}],"usage":{"completion_tokens":${c}}}`),
    fc.constantFrom('[DONE]', '', '{"choices":[{"delta":{"content":"x"}}]}', '{"error":{"message":"boom"}}'),
    fc.uint8Array({ maxLength: 60 }).map((a) => Buffer.from(a).toString('latin1')),
  );
  const request = fc.record({
    events: fc.array(fc.tuple(chunkText, fc.double({ min: 0, max: 120_000, noNaN: true })), { maxLength: 12 }),
    direct: fc.option(fc.tuple(fc.double(), fc.double())),
  });

  test('a result is assembled and loads back, and every request is in exactly one class', async () => {
    const { newStreamEvent, readEvent } = await import('../../src/client/openai.js');
    const { Recorder } = await import('../../src/metrics/recorder.js');
    const { buildResult } = await import('../../src/result/build.js');
    const { parseResult } = await import('../../src/result/load.js');
    const { parseSpec } = await import('../../src/spec/load.js');
    const resolved = parseSpec('target: {url: "http://127.0.0.1:9/v1", model: m}\nload: {steady: 10s}\n', 'fuzz.yml', {});
    const ev = newStreamEvent();
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 8 }), (requests) => {
        const rec = new Recorder({ runId: 'fuzz', runStart: 0, windowFromMs: 0, windowToMs: 10_000, slo: resolved.spec.slo });
        requests.forEach((req, i) => {
          const r = rec.open(i, i, 16, 8);
          rec.markSent(r, i);
          r.onWritten(i);
          r.onHeaders(i + 1, 200);
          if (req.direct) r.onUsage(req.direct[0], req.direct[1]);
          let done = false;
          for (const [text, at] of req.events) {
            const bytes = Buffer.from(text, 'latin1');
            const e = readEvent(bytes, 0, bytes.length, ev);
            if (e.error !== null) {
              r.onEnd(i + at, 'stream_error', e.error);
              return;
            }
            if (e.content !== null) r.onContent(i + at, e.content);
            if (e.usage) r.onUsage(e.promptTokens, e.completionTokens);
            if (e.done) done = true;
          }
          r.onEnd(i + 200_000, done ? 'ok' : 'stream_error', done ? undefined : 'stream ended without [DONE]');
        });
        const result = buildResult(rec, {
          resolved,
          targetUrl: 'http://127.0.0.1:9/v1',
          simulator: false,
          windowMs: 10_000,
          interrupted: false,
          notReached: 0,
          eventLoopDelayMs: { p50: 0.5, p99: 1, max: 2 },
          cpuS: 1,
          wallS: 10,
          windowCpu: null,
          workers: 1,
        });
        expect(Object.values(result.requests.by_class).reduce((a, b) => a + b, 0)).toBe(requests.length);
        const back = parseResult(JSON.stringify(result), 'fuzz.json');
        expect(back.requests.scheduled).toBe(requests.length);
        for (const v of [back.workload.output_tokens.delivered, back.workload.input_tokens.delivered])
          if (v) expect(v.max).toBeLessThanOrEqual(1e9);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
