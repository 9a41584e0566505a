import { createRng, type Rng } from '../../src/rng.js';
import { MALFORMED, newChunkFindings, OK, scanChunk, UNUSUAL, type ChunkFindings } from '../../src/client/chunk-scan.js';
import { newStreamEvent, parseEvent, readEvent, type StreamEvent } from '../../src/client/openai.js';

/*
 * The byte scanner must mean exactly what JSON.parse means. Each case is read both ways —
 * readEvent on the bytes (the scanner, falling back to JSON.parse where it says UNUSUAL) and
 * parseEvent on the text — and the two must agree on every field the metrics read.
 */

const meaning = (ev: StreamEvent) => ({
  done: ev.done,
  content: ev.content,
  usage: ev.usage ? [ev.promptTokens, ev.completionTokens] : null,
  error: ev.error,
});

function bothWays(text: string) {
  const bytes = Buffer.from(`data: ${text}\n`);
  return {
    scanned: meaning(readEvent(bytes, 6, bytes.length - 1, newStreamEvent())),
    parsed: meaning(parseEvent(bytes.toString('utf8', 6, bytes.length - 1), newStreamEvent())),
  };
}

function scan(text: string): { status: number; f: ChunkFindings } {
  const f = newChunkFindings();
  const b = Buffer.from(text);
  return { status: scanChunk(b, 0, b.length, f), f };
}

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)];

const ODD_VALUES = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e3,
  '',
  'x',
  ' tok',
  'é€😀',
  'a"b\\c\n',
  [],
  [1, 'two'],
  {},
  { nested: { deeper: [null] } },
];

/** A chunk in one of the shapes servers send, with fields left out, mistyped or oddly valued. */
function randomChunk(rng: Rng): unknown {
  const maybe = (p: number) => rng.next() < p;
  const delta: Record<string, unknown> = {};
  if (maybe(0.3)) delta.role = 'assistant';
  if (maybe(0.7)) delta.content = maybe(0.7) ? pick(rng, [' tok', 'x', '', 'é€😀', '\u0000', '"']) : pick(rng, ODD_VALUES);
  if (maybe(0.2)) delta.reasoning_content = pick(rng, ['think', '', null, 3]);
  if (maybe(0.1)) delta.reasoning = pick(rng, ['r', '', null]);
  const choice: Record<string, unknown> = { index: 0 };
  if (maybe(0.6)) choice.delta = maybe(0.85) ? delta : pick(rng, ODD_VALUES);
  if (maybe(0.4)) choice.text = maybe(0.7) ? pick(rng, [' tok', '']) : pick(rng, ODD_VALUES);
  if (maybe(0.3)) choice.logprobs = null;
  if (maybe(0.3)) choice.finish_reason = pick(rng, [null, 'stop', 'length']);
  const chunk: Record<string, unknown> = {};
  if (maybe(0.8)) chunk.id = `chatcmpl-${Math.floor(rng.next() * 1e6)}`;
  if (maybe(0.7)) chunk.object = pick(rng, ['chat.completion.chunk', 'text_completion', 'error', 'errors', 7]);
  if (maybe(0.5)) chunk.created = Math.floor(rng.next() * 2e9);
  if (maybe(0.8))
    chunk.choices = maybe(0.85)
      ? maybe(0.2)
        ? []
        : maybe(0.1)
          ? [pick(rng, ODD_VALUES), choice]
          : [choice, { index: 1, delta: { content: 'second' } }].slice(0, maybe(0.8) ? 1 : 2)
      : pick(rng, ODD_VALUES);
  if (maybe(0.25)) {
    chunk.usage = maybe(0.8)
      ? {
          prompt_tokens: maybe(0.8) ? Math.floor(rng.next() * 5000) : pick(rng, ODD_VALUES),
          completion_tokens: maybe(0.85)
            ? Math.floor(rng.next() * 5000)
            : pick(rng, [1.5, -0, '12', null, 1e21, Number('123456789012345678')]),
          total_tokens: 1,
        }
      : pick(rng, ODD_VALUES);
  }
  if (maybe(0.05)) chunk.error = pick(rng, [null, { message: 'overloaded' }, 'boom', 0]);
  if (maybe(0.05)) chunk.message = 'detail';
  return chunk;
}

/** JSON text with whitespace sprinkled between tokens, as some servers pretty-print. */
function spaced(rng: Rng, text: string): string {
  return rng.next() < 0.7 ? text : text.replace(/([,:{}[\]])/g, (m) => m + pick(rng, ['', ' ', '\n', '\t', '\r\n  ']));
}

describe('scanChunk agrees with JSON.parse', () => {
  test('on 5,000 generated chunks in every shape servers send', () => {
    const rng = createRng(11);
    let unusual = 0;
    for (let i = 0; i < 5000; i++) {
      const text = spaced(rng, JSON.stringify(randomChunk(rng)));
      const { scanned, parsed } = bothWays(text);
      if (JSON.stringify(scanned) !== JSON.stringify(parsed)) expect({ text, scanned }).toEqual({ text, scanned: parsed });
      if (scan(text).status === UNUSUAL) unusual++;
    }
    // Most chunks are read without JSON.parse; only the odd ones fall back to it.
    expect(unusual).toBeGreaterThan(0);
    expect(unusual).toBeLessThan(1000);
  });

  test('on every truncation and on random byte damage of real chunks', () => {
    const rng = createRng(12);
    const real = [
      '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1795986737,"model":"m","choices":[{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":null}]}',
      '{"id":"cmpl-2","object":"text_completion","choices":[{"index":0,"text":" tok","logprobs":null,"finish_reason":"length"}]}',
      '{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":3,"total_tokens":4,"prompt_tokens_details":{"cached_tokens":0}}}',
      '{"choices":[{"delta":{"reasoning_content":"hm\\u00e9\\n"}}],"usage":null}',
    ];
    const damage = ['"', '\\', '{', '}', '[', ']', ',', ':', ' ', '0', '-', '.', 'e', 'n', 't', '\u0001', '\u001f', 'é'];
    for (const text of real) {
      for (let cut = 0; cut < text.length; cut++) {
        const { scanned, parsed } = bothWays(text.slice(0, cut));
        expect({ cut, scanned }).toEqual({ cut, scanned: parsed });
      }
      for (let i = 0; i < 1500; i++) {
        const at = Math.floor(rng.next() * text.length);
        const op = rng.next();
        const ch = pick(rng, damage);
        const broken =
          op < 0.4
            ? text.slice(0, at) + ch + text.slice(at + 1)
            : op < 0.8
              ? text.slice(0, at) + ch + text.slice(at)
              : text.slice(0, at) + text.slice(at + 1);
        const { scanned, parsed } = bothWays(broken);
        if (JSON.stringify(scanned) !== JSON.stringify(parsed)) expect({ broken, scanned }).toEqual({ broken, scanned: parsed });
      }
    }
  });

  test.each([
    ['plain chat content', '{"choices":[{"delta":{"content":"x"}}]}', OK],
    ['top level not an object', '[{"choices":[]}]', MALFORMED],
    ['trailing garbage', '{"choices":[]} x', MALFORMED],
    ['leading zero', '{"usage":{"completion_tokens":01}}', MALFORMED],
    ['raw control character in a string', '{"id":"a\u001fb"}', MALFORMED],
    ['bad escape', '{"id":"a\\qb"}', MALFORMED],
    ['short unicode escape', '{"id":"\\u12"}', MALFORMED],
    ['trailing comma', '{"choices":[1,],"id":1}', MALFORMED],
    ['escaped key name', '{"\\u0063hoices":[{"text":"x"}]}', UNUSUAL],
    ['repeated key of interest', '{"usage":{"completion_tokens":1},"usage":null}', UNUSUAL],
    ['an error payload', '{"error":{"message":"m"}}', UNUSUAL],
    ['object: error', '{"object":"error","message":"m"}', UNUSUAL],
    ['fractional token count', '{"usage":{"completion_tokens":1.0}}', UNUSUAL],
    ['very deep nesting', `{"x":${'['.repeat(40)}${']'.repeat(40)}}`, UNUSUAL],
    ['escaped key outside the keys of interest', '{"id":{"\\u0063ontent":"x"},"choices":[]}', OK],
  ])('%s', (_name, text, status) => {
    expect(scan(text).status).toBe(status);
    const { scanned, parsed } = bothWays(text);
    expect(scanned).toEqual(parsed);
  });

  test('reads the fields the metrics need from a usage chunk', () => {
    const { status, f } = scan('{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":345}}');
    expect(status).toBe(OK);
    expect(f).toEqual({ hasDelta: false, answer: false, reasoning: false, text: false, completionTokens: 345, promptTokens: 12 });
  });
});
