import { Ajv } from 'ajv';
import { runBenchmark } from '../../src/run/run.js';
import { runReplicatesMerged } from '../../src/run/replicates.js';
import { parseResult } from '../../src/result/load.js';
import { resultSchema } from '../../src/result/schema.js';
import type { Result } from '../../src/result/types.js';
import { launchSim, type SimHandle } from '../../src/sim/launch.js';
import { parseSpec } from '../../src/spec/load.js';
import { specSchema } from '../../src/spec/schema.js';

/*
 * Results of real short runs against the simulator, held to result.json's schema: a steady run
 * with the server view, a spike, a soak, multi-turn sessions and merged replicates, so every
 * section the schema describes in detail is produced by the code that writes it and read back.
 * The other way round too: every key such a result has is one the schema (so the Result type)
 * describes.
 */

const validate = new Ajv({ allErrors: true, strict: true }).compile(resultSchema);
const validateSpec = new Ajv({ strict: true }).compile(specSchema);
const problems = (r: unknown) => (validate(r) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`));

let sim: SimHandle;
beforeAll(async () => {
  sim = await launchSim({ seed: 11, mode: 'paced', slots: 4, ttft_ms: 20, itl_ms: 2 });
});
afterAll(() => sim?.stop());

const spec = (workload: string, load: string, o: { rate?: number; steady?: string } = {}) =>
  parseSpec(
    `name: schema
target: { url: ${sim.baseUrl}, model: sim-8b, metrics_interval: 200ms }
workload: { seed: 3, calibrate: off, input_tokens: 32, output_tokens: 12${workload} }
load: { rate: ${o.rate ?? 20}, warmup: 200ms, steady: ${o.steady ?? '1s'}, cooldown: 0s${load} }
`,
    'schema.yml',
    {},
  );

const runs: [string, () => Promise<Result>, (r: Result) => unknown][] = [
  ['a steady run with the server view', () => runBenchmark({ resolved: spec('', '') }), (r) => r.server?.available],
  [
    'a spike',
    () => runBenchmark({ resolved: spec('', ', pattern: { kind: spike, multiplier: 2, at: 300ms, for: 300ms }') }),
    (r) => r.pattern?.spike,
  ],
  ['a soak', () => runBenchmark({ resolved: spec('', ', soak: { segments: 2 }') }), (r) => r.pattern?.soak],
  [
    'multi-turn sessions',
    () => runBenchmark({ resolved: spec(', sessions: { turns: 2, think_time: 20ms }', '', { rate: 5 }) }),
    (r) => r.workload.plan?.sessions,
  ],
  ['merged replicates', () => runReplicatesMerged({ resolved: spec('', ', replicates: 2', { steady: '600ms' }) }, 2), (r) => r.replicates],
];

interface Node {
  properties?: Record<string, Node>;
  additionalProperties?: Node | boolean;
  items?: Node;
  anyOf?: Node[];
  $ref?: string;
}
const definitions = (resultSchema as unknown as { definitions: Record<string, Node> }).definitions;

/** Keys of `value` its schema does not describe: objects accept them, but what loadgate itself writes is described. */
function undescribed(node: Node, value: unknown, path = ''): string[] {
  if (node.$ref) return undescribed(definitions[node.$ref.replace('#/definitions/', '')], value, path);
  if (node.anyOf) {
    // A key is described when some branch describes it (a null branch describes nothing of a value).
    const [first, ...rest] = node.anyOf.map((n) => undescribed(n, value, path));
    return first.filter((p) => rest.every((r) => r.includes(p)));
  }
  if (Array.isArray(value)) return node.items ? value.flatMap((v, i) => undescribed(node.items!, v, `${path}/${i}`)) : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const sub = node.properties?.[k] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
    return sub ? undescribed(sub, v, `${path}/${k}`) : [`${path}/${k}`];
  });
}

test.each(runs)(
  '%s validates against the result schema, every key described, and reads back unchanged',
  async (_name, run, section) => {
    const r = await run();
    expect(section(r)).toBeTruthy();
    expect(problems(r)).toEqual([]);
    // The spec is described by the spec's own schema (src/spec/schema.ts), which its copy here is not held to.
    const outsideSpec = undescribed(resultSchema as unknown as Node, JSON.parse(JSON.stringify(r))).filter((p) => !p.startsWith('/spec/'));
    expect(outsideSpec).toEqual([]);
    // Typed as a Spec, the copy is one: this version's spec schema accepts it as it stands.
    expect(validateSpec(JSON.parse(JSON.stringify(r.spec)))).toBe(true);
    expect(parseResult(JSON.stringify(r), 'result.json')).toEqual(JSON.parse(JSON.stringify(r)));
  },
  30_000,
);

test('the schema holds the sections it used to leave open: a wrong type deep inside one is refused', async () => {
  const r = JSON.parse(JSON.stringify(await runBenchmark({ resolved: spec('', ', soak: { segments: 2 }') }))) as Result;
  expect(problems(r)).toEqual([]);
  /** The problems of a copy of r with `edit` applied to it, seen as plain JSON. */
  const broken = (edit: (d: Result, open: (x: object) => Record<string, unknown>) => void) => {
    const d = structuredClone(r);
    edit(d, (x) => x as Record<string, unknown>);
    return problems(d);
  };
  expect(broken((d, o) => (o(d.pattern!.phases[0]).achieved_rate_per_s = 'fast'))).toContain(
    '/pattern/phases/0/achieved_rate_per_s must be number',
  );
  expect(broken((d, o) => delete o(d.pattern!.soak!).rule)).toContain("/pattern/soak must have required property 'rule'");
  expect(broken((d, o) => (o(d.workload.plan!.calibration).method = 'guess'))).toContain(
    '/workload/plan/calibration/method must be equal to one of the allowed values',
  );
  expect(broken((d, o) => (o(d.server!.timeseries).running = 'none'))).toContain('/server/timeseries/running must be array');
  // Extra keys anywhere still load: a newer loadgate's result must load in this one.
  expect(broken((d, o) => (o(d.pattern!.phases[0]).added_later = 1))).toEqual([]);
}, 30_000);
