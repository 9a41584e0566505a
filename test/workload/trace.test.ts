import { sliceTrace, scheduleWithin } from '../../src/arrivals/trace.js';
import { parseSpec } from '../../src/spec/load.js';
import { uncalibrated } from '../../src/workload/calibrate.js';
import type { WorkloadInputs } from '../../src/workload/inputs.js';
import { parseTrace } from '../../src/workload/trace-file.js';
import { createWorkload } from '../../src/workload/workload.js';

test('mooncake lines keep their timestamps as offsets, sorted; hash ids kept', () => {
  const text = [
    '{"timestamp": 30, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}',
    '',
    '{"timestamp": 10, "input_length": 20, "output_length": 7}',
  ].join('\n');
  expect(parseTrace(text, 't.jsonl', 'mooncake')).toEqual([
    { atMs: 10, inputTokens: 20, outputTokens: 7 },
    { atMs: 30, inputTokens: 600, outputTokens: 5, hashIds: [1, 2] },
  ]);
});

test('azure rows: date-times with seven fraction digits, offsets from the first row', () => {
  const text = 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:47.0000000,396,109\n';
  const e = parseTrace(text, 'a.csv', 'azure');
  expect(e.map((x) => [Math.round(x.atMs * 10) / 10, x.inputTokens, x.outputTokens])).toEqual([
    [0, 374, 44],
    [319.4, 396, 109],
  ]);
});

test.each([
  ['mooncake', '{"timestamp": 0, "input_length": 0, "output_length": 5}', 't:1: input_length is 0; expected a positive integer'],
  [
    'mooncake',
    '{"timestamp": 0, "input_length": 5, "output_length": 5, "hash_ids": [-1]}',
    't:1: "hash_ids" is not a list of integers ≥ 0',
  ],
  ['mooncake', 'not json', 't:1: not valid JSON'],
  ['azure', 'TIME,ContextTokens,GeneratedTokens\n1,2,3', 't:1: no TIMESTAMP column'],
  ['azure', 'TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,2,3', 't:2: TIMESTAMP "yesterday" is not a date-time or a number'],
  ['azure', 'TIMESTAMP,ContextTokens,GeneratedTokens\n', 't: holds no arrival'],
] as const)('%s: %s is one clear error', (format, text, message) => {
  expect(() => parseTrace(text, 't', format)).toThrow(message);
});

test('a slice keeps [start, start + duration) of trace time, rescaled by the speedup; the run’s end frames it', () => {
  const { kept, schedule } = sliceTrace([0, 100, 250, 400, 1000], { speedup: 2, startMs: 100, durationMs: 400 });
  expect(kept).toEqual([1, 2, 3]);
  expect([...schedule]).toEqual([0, 75, 150]);
  expect([...scheduleWithin(schedule, 100)]).toEqual([0, 75]);
});

function traceInputs(lines: string[], extra = ''): WorkloadInputs {
  const spec = parseSpec(`target: { url: sim }\nworkload:\n  trace: { file: t.jsonl, format: mooncake }\n${extra}`, 'x.yml', {}).spec;
  return {
    spec,
    input: null,
    output: { dist: 'fixed', value: 1 },
    dataset: null,
    trace: parseTrace(lines.join('\n'), 't.jsonl', 'mooncake'),
    files: {},
  };
}

test('shared hash ids give identical text, block by block; lengths and max_tokens are the trace’s', () => {
  const inputs = traceInputs([
    '{"timestamp": 0, "input_length": 1100, "output_length": 9, "hash_ids": [7, 8, 9]}',
    '{"timestamp": 5, "input_length": 700, "output_length": 3, "hash_ids": [7, 4]}',
    '{"timestamp": 9, "input_length": 50, "output_length": 2}',
  ]);
  const w = createWorkload(inputs, uncalibrated(), 11);
  expect([...w.schedule!]).toEqual([0, 5, 9]);
  const items = [0, 1, 2].map((i) => w.next(i));
  const words = items.map((it) => it.messages[0].content.split(' '));
  expect(words.map((x) => x.length)).toEqual([1100, 700, 50]);
  expect(items.map((it) => it.maxTokens)).toEqual([9, 3, 2]);
  expect(words[1].slice(0, 512)).toEqual(words[0].slice(0, 512));
  expect(words[1].slice(512, 600)).not.toEqual(words[0].slice(512, 600));
  expect(JSON.parse(items[0].body)).toMatchObject({ max_tokens: 9, ignore_eos: true });
  // Of 1,850 prompt tokens, the second request's first block (512) was already sent.
  expect(w.describe().plan.prefix.expected_cache_hit_ratio).toBeCloseTo(512 / 1850, 3);
});

test('a shared system prompt goes first and counts inside the trace’s input length', () => {
  const inputs = traceInputs(
    ['{"timestamp": 0, "input_length": 600, "output_length": 4, "hash_ids": [1, 2]}'],
    '  prefix: { shared_tokens: 40 }',
  );
  const item = createWorkload(inputs, { ...uncalibrated(), prefix_tokens: 40 }, 3).next(0);
  expect(item.messages[0].role).toBe('system');
  expect(item.messages.map((m) => m.content.split(' ').length)).toEqual([40, 560]);
});
