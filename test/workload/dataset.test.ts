import { readFileSync } from 'node:fs';
import { createRng } from '../../src/rng.js';
import { entryPicker, parseDataset } from '../../src/workload/dataset.js';

const example = (name: string) => readFileSync(new URL(`../../examples/data/${name}`, import.meta.url), 'utf8');
const line = (o: unknown) => JSON.stringify(o);

describe('jsonl', () => {
  test('prompt or messages, with an optional max_tokens; blank lines skipped', () => {
    const text = [
      line({ prompt: 'one two three', max_tokens: 20 }),
      '',
      line({
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'why is the sky blue' },
        ],
      }),
    ].join('\n');
    const d = parseDataset(text, 'd.jsonl', 'jsonl');
    expect(d.skipped).toBe(0);
    expect(d.entries).toEqual([
      { messages: [{ role: 'user', content: 'one two three' }], words: 3, maxTokens: 20 },
      {
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'why is the sky blue' },
        ],
        words: 7,
      },
    ]);
  });

  test('the shipped sample dataset parses: 37 varied entries written for loadgate', () => {
    const d = parseDataset(example('chat-sample.jsonl'), 'chat-sample.jsonl', 'jsonl');
    expect(d.entries).toHaveLength(37);
    const words = d.entries.map((e) => e.words);
    expect(Math.min(...words)).toBeLessThan(10);
    expect(Math.max(...words)).toBeGreaterThan(150);
    expect(d.entries.filter((e) => e.messages.length > 1).length).toBeGreaterThanOrEqual(5);
    expect(d.entries.filter((e) => e.maxTokens === undefined)).toHaveLength(6);
  });

  const good = line({ prompt: 'fine' });
  test.each([
    [
      [...Array(16).fill(good), line({ text: 'hi' })],
      'data.jsonl:17: missing "prompt" or "messages"; expected {"prompt": "..."} or {"messages": [{"role": "user", "content": "..."}]}, optionally with "max_tokens"',
    ],
    [[good, '{"prompt": "unterminated'], /^data\.jsonl:2: not valid JSON \(.+\); expected \{"prompt": "\.\.\."\} or/],
    [[good, '[1, 2]'], 'data.jsonl:2: not a JSON object; expected {"prompt": "..."} or'],
    [[line({ prompt: '  ' })], 'data.jsonl:1: "prompt" is empty; expected the prompt text'],
    [[line({ prompt: 'x', max_tokens: 0 })], 'data.jsonl:1: "max_tokens" is 0; expected a positive integer'],
    [[line({ prompt: 'x', max_tokens: '20' })], 'data.jsonl:1: "max_tokens" is a string; expected a positive integer of at most 2,000,000'],
    [[line({ messages: [] })], 'data.jsonl:1: "messages" is not a non-empty list; expected'],
    [
      [line({ messages: [{ role: 'user' }] })],
      'data.jsonl:1: messages[0] has no text "content"; expected {"role": "user", "content": "..."}',
    ],
    [
      [line({ messages: [{ role: 'tool', content: 'x' }] })],
      'data.jsonl:1: messages[0].role is not system, user or assistant; expected one of them',
    ],
    // The file's own text never appears in a message: a line of /etc/passwd, a .env secret.
    [['root:x:0:0:root:/root:/bin/bash'], /^data\.jsonl:1: not valid JSON \(a syntax error\); expected/],
    [
      [line({ prompt: 'p', max_tokens: 'sk-live-secret' })],
      'data.jsonl:1: "max_tokens" is a string; expected a positive integer of at most 2,000,000',
    ],
    [
      [line({ prompt: 'p', max_tokens: 1e12 })],
      'data.jsonl:1: "max_tokens" is 1000000000000; expected a positive integer of at most 2,000,000',
    ],
    [
      [line({ messages: [{ role: 'sk-live-secret', content: 'x' }] })],
      'data.jsonl:1: messages[0].role is not system, user or assistant; expected one of them',
    ],
    [[''], 'data.jsonl: holds no usable entry; expected at least one'],
  ] as [string[], string | RegExp][])('a bad line is one error naming file and line: %#', (lines, message) => {
    expect(() => parseDataset(lines.join('\n'), 'data.jsonl', 'jsonl')).toThrow(message);
    expect(() => parseDataset(lines.join('\n'), 'data.jsonl', 'jsonl')).not.toThrow(/root:|sk-live|tool/);
  });
});

describe('sharegpt', () => {
  const conv = (...turns: [string, string][]) => ({ conversations: turns.map(([from, value]) => ({ from, value })) });

  test('first human turn is the prompt, the reply sets the output length; JSON list or JSONL', () => {
    const data = [
      conv(['human', 'a b c'], ['gpt', 'one two three four five']),
      conv(['system', 'sys'], ['user', 'x y'], ['assistant', 'z']),
    ];
    for (const text of [JSON.stringify(data), data.map(line).join('\n')]) {
      expect(parseDataset(text, 's.json', 'sharegpt').entries).toEqual([
        { messages: [{ role: 'user', content: 'a b c' }], words: 3, answerWords: 5, turns: [{ text: 'a b c', words: 3, answerWords: 5 }] },
        { messages: [{ role: 'user', content: 'x y' }], words: 2, answerWords: 1, turns: [{ text: 'x y', words: 2, answerWords: 1 }] },
      ]);
    }
  });

  test('every human turn is kept for sessions, each with the length of the reply after it', () => {
    const data = [conv(['human', 'a b'], ['gpt', 'one two three'], ['human', 'c'], ['gpt', 'four'], ['human', 'd e f'])];
    expect(parseDataset(JSON.stringify(data), 's.json', 'sharegpt').entries[0].turns).toEqual([
      { text: 'a b', words: 2, answerWords: 3 },
      { text: 'c', words: 1, answerWords: 1 },
      { text: 'd e f', words: 3, answerWords: 1 },
    ]);
  });

  test('conversations without a human turn and a reply are skipped and counted, as vLLM does', () => {
    const data = [conv(['human', 'q'], ['gpt', 'a']), conv(['human', 'no reply']), conv(['gpt', 'only the model']), conv()];
    expect(parseDataset(JSON.stringify(data), 's.json', 'sharegpt')).toMatchObject({ skipped: 3, entries: [{ words: 1 }] });
  });

  test('the shipped ShareGPT sample parses', () => {
    const d = parseDataset(example('sharegpt-sample.json'), 'sharegpt-sample.json', 'sharegpt');
    expect(d.entries).toHaveLength(8);
    expect(d.skipped).toBe(0);
    expect(Math.max(...d.entries.map((e) => e.answerWords!))).toBeGreaterThan(100);
  });

  test.each([
    [
      JSON.stringify([conv(['human', 'q'], ['gpt', 'a']), { id: 3 }]),
      's.json: entry 2: missing "conversations"; expected {"conversations": [{"from": "human", "value": "..."}, {"from": "gpt", "value": "..."}]}',
    ],
    [
      [line(conv(['human', 'q'], ['gpt', 'a'])), line({ conversations: [{ from: 'human', text: 'q' }] })].join('\n'),
      's.json:2: conversations[0] is not {"from": "...", "value": "..."}; expected',
    ],
    ['[{"conversations": [}', /^s\.json: not valid JSON \(.+\); expected a JSON list, or one JSON object per line$/],
  ] as [string, string | RegExp][])('a bad entry is one error naming file and entry: %#', (text, message) => {
    expect(() => parseDataset(text, 's.json', 'sharegpt')).toThrow(message);
  });
});

describe('sampling entries', () => {
  test('without replacement, every pass uses each entry exactly once, in a seeded order', () => {
    const pick = entryPicker(10, 'without_replacement', createRng(4));
    const passes = Array.from({ length: 3 }, () => Array.from({ length: 10 }, pick));
    for (const p of passes) expect([...p].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(passes[0]).not.toEqual(passes[1]);
    const again = entryPicker(10, 'without_replacement', createRng(4));
    expect(Array.from({ length: 10 }, again)).toEqual(passes[0]);
  });

  test('with replacement, entries are drawn uniformly and independently', () => {
    const pick = entryPicker(4, 'with_replacement', createRng(4));
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 20_000; i++) counts[pick()]++;
    for (const c of counts) expect(Math.abs(c / 20_000 - 0.25)).toBeLessThan(0.015);
  });
});
