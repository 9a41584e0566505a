import { SseFramer } from '../../src/client/sse.js';

type Ev = [data: string, isError: boolean];

function frame(chunks: Uint8Array[], end = false): Ev[] {
  const out: Ev[] = [];
  const f = new SseFramer({
    onEvent: (d, s, e, isError) => out.push([d.toString('utf8', s, e), isError]),
    onOversize: (max) => out.push([`oversize ${max}`, true]),
  });
  for (const c of chunks) f.push(c);
  if (end) f.end();
  return out;
}

const bytes = (s: string) => Buffer.from(s, 'utf8');

/** Every way of cutting `payload` into two reads, plus one byte per read. */
function* splits(payload: Buffer): Generator<Uint8Array[]> {
  for (let i = 0; i <= payload.length; i++) yield [payload.subarray(0, i), payload.subarray(i)];
  yield [...payload].map((b) => Uint8Array.of(b)); // plain Uint8Arrays, not Buffers
}

describe('SseFramer', () => {
  const payload = bytes(
    ': ping\r\n' +
      'data: {"a":"日本"}\r\n\r\n' +
      'data:{"no":"space"}\n\n' +
      'event: message\nid: 7\nretry: 100\ndata: first\ndata:  second\ndata\n\n' +
      'data: cr-only é\r\r' +
      ':\n' +
      'event: error\ndata: {"error":{"message":"boom"}}\n\n' +
      'data: [DONE]\n\n',
  );
  const expected: Ev[] = [
    ['{"a":"日本"}', false],
    ['{"no":"space"}', false],
    ['first\n second\n', false],
    ['cr-only é', false],
    ['{"error":{"message":"boom"}}', true],
    ['[DONE]', false],
  ];

  test('frames a payload with mixed line endings, comments and fields in one read', () => {
    expect(frame([payload])).toEqual(expected);
  });

  test('frames identically however the payload is split across reads (inside CRLF and UTF-8 too)', () => {
    for (const chunks of splits(payload)) expect(frame(chunks)).toEqual(expected);
  });

  test('frames identically for every three-way split', () => {
    const want = JSON.stringify(expected);
    const wrong: [number, number][] = [];
    for (let i = 0; i < payload.length; i++) {
      for (let j = i; j <= payload.length; j++) {
        const got = frame([payload.subarray(0, i), payload.subarray(i, j), payload.subarray(j)]);
        if (JSON.stringify(got) !== want) wrong.push([i, j]);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('CR at the end of a read followed by an empty read and then LF is one line ending', () => {
    expect(frame([bytes('data: x\r'), bytes(''), bytes('\n\r\n')])).toEqual([['x', false]]);
  });

  test('CR CR is a line ending plus a blank line, not one CRLF', () => {
    expect(frame([bytes('data: x\r'), bytes('\rdata: y\r\n\r\n')])).toEqual([
      ['x', false],
      ['y', false],
    ]);
  });

  test('fields are matched whole: "datax:" and "events:" are unknown fields', () => {
    expect(frame([bytes('datax: no\nevents: error\ndata: yes\n\n')])).toEqual([['yes', false]]);
  });

  test('a blank line without data dispatches nothing; an error event dispatches even without data', () => {
    expect(frame([bytes('\n\nid: 1\n\nevent: error\n\n')])).toEqual([['', true]]);
  });

  test('the event type resets after each event', () => {
    expect(frame([bytes('event: error\ndata: a\n\ndata: b\n\n')])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  test('a leading UTF-8 BOM is ignored, even split across reads', () => {
    const p = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes('data: a\n\n')]);
    for (const chunks of splits(p)) expect(frame(chunks)).toEqual([['a', false]]);
  });

  test('end() dispatches an unterminated last event, including a line without a newline', () => {
    expect(frame([bytes('data: a\n')], true)).toEqual([['a', false]]);
    expect(frame([bytes('data: [DONE]')], true)).toEqual([['[DONE]', false]]);
    expect(frame([bytes('data: a\n\n')], true)).toEqual([['a', false]]);
  });

  test('long lines crossing many reads are carried intact', () => {
    const long = 'x'.repeat(10_000) + 'é'.repeat(3000);
    const p = bytes(`data: ${long}\n\ndata: short\n\n`);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < p.length; i += 777) chunks.push(p.subarray(i, i + 777));
    expect(frame(chunks)).toEqual([
      [long, false],
      ['short', false],
    ]);
  });
});

describe('what the sink is handed', () => {
  /** Each event as [its text, whether the sink was handed the very buffer that was pushed]. */
  const handed = (chunks: Buffer[]) => {
    const out: [string, boolean][] = [];
    const f = new SseFramer({
      onEvent: (d, s, e) => out.push([d.toString('utf8', s, e), chunks.includes(d)]),
      onOversize: () => undefined,
    });
    for (const c of chunks) f.push(c);
    return out;
  };

  test("an event whose one data line came whole in one read is that read's bytes, not a copy", () => {
    const read = Buffer.from('data: {"a":1}\n\ndata: {"b":2}\r\n\r\n');
    expect(handed([read])).toEqual([
      ['{"a":1}', true],
      ['{"b":2}', true],
    ]);
  });

  test('an event that ends in a later read, or has several data lines, is copied: a read is not kept past its push', () => {
    const first = Buffer.from('data: {"a":1}\n');
    const second = Buffer.from('\ndata: x\ndata: y\n\n');
    expect(handed([first, second])).toEqual([
      ['{"a":1}', false],
      ['x\ny', false],
    ]);
  });
});

describe('the bound on a line and on an event', () => {
  const oversized = (chunks: string[], max: number) => {
    const out: string[] = [];
    const f = new SseFramer(
      { onEvent: (d, s, e) => out.push(d.toString('utf8', s, e)), onOversize: (m) => out.push(`oversize ${m}`) },
      max,
    );
    for (const c of chunks) f.push(bytes(c));
    f.end();
    return out;
  };

  test('a line that never ends, fed in small reads, stops the framer once it passes the bound, and nothing after it is framed', () => {
    const reads = Array.from({ length: 200 }, () => 'x'.repeat(10));
    expect(oversized(['data: {"a":1}\n\n', 'data: ', ...reads, '\n\ndata: [DONE]\n\n'], 1024)).toEqual(['{"a":1}', 'oversize 1024']);
  });

  test("an event's data lines together past the bound stop it too; up to the bound they pass", () => {
    const line = `data: ${'y'.repeat(300)}\n`;
    expect(oversized([line.repeat(4), '\n'], 1024)).toEqual(['oversize 1024']);
    expect(oversized([line.repeat(3), '\n'], 1024)).toEqual([Array(3).fill('y'.repeat(300)).join('\n')]);
  });
});
