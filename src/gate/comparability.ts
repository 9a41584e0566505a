import type { Spec } from '../spec/types.js';
import type { Result } from '../result/types.js';
import type { CheckOutcome } from './types.js';

/*
 * "Is the current run the same experiment as the baseline?" If not, no difference between
 * them can be blamed on the change under test, and the verdict is inconclusive.
 */

/**
 * The part of a spec that decides the treatment the server gets. Left out: the target URL,
 * headers and key (a preview deployment is the same benchmark at another address), the
 * simulator's settings (the system under test, not the test), SLOs and gate settings (they
 * judge, they do not load), the name, and load.rate, which is compared with a tolerance below.
 */
function treatment(spec: Spec): unknown {
  const { rate: _rate, ...load } = spec.load;
  return { target: { api: spec.target.api, request_timeout: spec.target.request_timeout }, workload: spec.workload, load };
}

/** Leaf paths of a JSON value with their serialized values. */
function leaves(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
  } else out.set(path, JSON.stringify(value) ?? 'unset');
  return out;
}

function specDifferences(base: Spec, cur: Spec): string[] {
  const a = leaves(treatment(base));
  const b = leaves(treatment(cur));
  return [...new Set([...a.keys(), ...b.keys()])]
    .filter((k) => a.get(k) !== b.get(k))
    .map((k) => `${k} ${a.get(k) ?? 'unset'} → ${b.get(k) ?? 'unset'}`);
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

export function comparabilityChecks(base: Result, cur: Result, tolerancePct: number): CheckOutcome[] {
  const checks: CheckOutcome[] = [];
  const add = (name: string, ok: boolean, message: string) => checks.push({ scope: 'comparability', name, ok, message });
  const tolerance = tolerancePct / 100;

  const sameModel = base.target.model === cur.target.model;
  add(
    'model',
    sameModel,
    sameModel
      ? `both runs served model ${JSON.stringify(cur.target.model)}`
      : `the model differs: baseline ${JSON.stringify(base.target.model)}, current ${JSON.stringify(cur.target.model)}`,
  );

  const diffs = base.spec_hash === cur.spec_hash ? [] : specDifferences(base.spec, cur.spec);
  add(
    'spec',
    diffs.length === 0,
    base.spec_hash === cur.spec_hash
      ? `same spec (hash ${cur.spec_hash.slice(0, 12)})`
      : diffs.length === 0
        ? `spec hash differs (baseline ${base.spec_hash.slice(0, 12)}, current ${cur.spec_hash.slice(0, 12)}) only outside the workload and load (e.g. target URL, SLOs)`
        : `spec hash differs (baseline ${base.spec_hash.slice(0, 12)}, current ${cur.spec_hash.slice(0, 12)}) in ${diffs.slice(0, 3).join(', ')}${diffs.length > 3 ? ` and ${diffs.length - 3} more` : ''}`,
  );

  const near = (name: string, what: string, unit: string, b: number | null | undefined, c: number | null | undefined) => {
    if (b == null || c == null || b === 0) {
      add(
        name,
        true,
        `${what}: not measured in ${b == null && c == null ? 'either run' : b == null || b === 0 ? 'the baseline' : 'the current run'}; not compared`,
      );
      return;
    }
    const d = Math.abs(c / b - 1);
    add(
      name,
      d <= tolerance,
      `${what} ${c.toFixed(1)}${unit} vs baseline ${b.toFixed(1)}${unit}: ${d <= tolerance ? 'within' : 'differs by'} ${pct(d)}${d <= tolerance ? ` (tolerance ${tolerancePct} %)` : `, more than the ${tolerancePct} % tolerance`}`,
    );
  };
  // A closed-loop run's arrival rate is an outcome, not the treatment: its concurrency is in the spec.
  if (base.load.mode === 'open' && cur.load.mode === 'open')
    near('offered_rate', 'offered rate', ' req/s', base.load.offered_rate_per_s, cur.load.offered_rate_per_s);
  near(
    'prompt_length',
    'delivered prompt length (mean)',
    ' tokens',
    base.workload.input_tokens.delivered?.mean,
    cur.workload.input_tokens.delivered?.mean,
  );
  near(
    'output_length',
    'delivered output length (mean)',
    ' tokens',
    base.workload.output_tokens.delivered?.mean,
    cur.workload.output_tokens.delivered?.mean,
  );
  return checks;
}
