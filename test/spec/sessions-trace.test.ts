import { parseSpec } from '../../src/spec/load.js';

const spec = (workload: string, load = '') =>
  parseSpec(`target: { url: sim }\nworkload:\n${workload}\n${load ? `load:\n${load}\n` : ''}`, 'bench.yml', {});

test('sessions: turns shorthand and think-time forms resolve', () => {
  expect(spec('  sessions: { turns: 4, think_time: 300ms }').spec.workload.sessions).toEqual({
    turns: { dist: 'fixed', value: 4 },
    think_time: '300ms',
  });
  expect(
    spec('  sessions: { turns: { dist: uniform, min: 2, max: 6 }, think_time: { dist: exponential, mean: 2s } }').spec.workload.sessions,
  ).toMatchObject({
    think_time: { dist: 'exponential', mean: '2s' },
  });
  expect(spec('  sessions: { turns: 2 }').spec.workload.sessions!.think_time).toBe('0s');
});

test.each([
  [
    '  sessions: { think_time: 1s }',
    '',
    'bench.yml: workload.sessions.turns is missing; expected a number of turns such as 4, or a length distribution',
  ],
  ['  sessions: { turns: 3, think_time: soon }', '', 'bench.yml: workload.sessions.think_time'],
  [
    '  sessions: { turns: 3, think_time: { dist: uniform, min: 1s, max: later } }',
    '',
    'bench.yml: workload.sessions.think_time.max "later" is not a duration',
  ],
  ['  sessions: { turns: 3 }', '  mode: closed', 'bench.yml: load.mode is closed with workload.sessions; expected open'],
  [
    '  trace: { file: t.jsonl, format: mooncake }\n  input_tokens: 100',
    '',
    'bench.yml: workload.input_tokens is given with trace; expected one or the other',
  ],
  ['  trace: { file: t.jsonl, format: mooncake }\n  sessions: { turns: 2 }', '', 'bench.yml: workload.sessions is given with trace'],
  [
    '  trace: { file: t.jsonl, format: mooncake }',
    '  ramp_up: 10s',
    'bench.yml: load.ramp_up is given with workload.trace; expected none (the trace is the load pattern)',
  ],
  ['  trace: { file: t.jsonl, format: mooncake, start: 1 minute }', '', 'bench.yml: workload.trace.start'],
  ['  trace: { file: t.jsonl, format: csv }', '', 'bench.yml: workload.trace.format'],
])('%s %s is one clear error', (workload, load, message) => {
  expect(() => spec(workload, load)).toThrow(message);
});

test('a trace drops the input_tokens default and keeps the timeline keys', () => {
  const r = spec('  trace: { file: t.jsonl, format: azure, speedup: 2, start: 10s, duration: 1m }', '  steady: 30s');
  expect(r.spec.workload.input_tokens).toBeUndefined();
  expect(r.spec.workload.trace).toEqual({ file: 't.jsonl', format: 'azure', speedup: 2, start: '10s', duration: '1m' });
  expect(r.steadyMs).toBe(30_000);
});
