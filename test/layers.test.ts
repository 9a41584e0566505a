import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { LAYERS, SIM_MAY_IMPORT } from './layers.js';

/*
 * Layers point down: each stage of src/ imports only the stages below it.
 *
 * At the bottom, the foundation (clock, PRNG, version, rounding) and the mechanisms that know
 * nothing of a spec: the streaming HTTP client and its wire format, the recorder with the
 * metric table and the pure statistics (bootstrap, sample rule) that result and gate both judge
 * with, the dispatchers. Then the spec, which names those metrics (the gate section's
 * keys come from the metric table) and is read by every stage above it. Then the pipeline as a
 * run goes: the arrivals are planned from the spec's load, the workload builds the requests, the server's own view is scraped, the result is assembled,
 * judged by the gate (and, for a sweep of runs, analysed for capacity), reported. `run` drives
 * one benchmark, `sweep` a series of them; `cli` and `action` are thin edges.
 *
 * `sim` is an edge of its own: the simulator is a server, not a stage, so it may use only the
 * foundation and the spec's error wording; `run` starts it for `target.url: sim`.
 * Type-only imports count: a type that lives above its user is a layer pointing up too.
 */
const SRC = resolve('src');
const rank = new Map(LAYERS.flatMap((layer, i) => layer.stages.map((s) => [s, i] as const)));

/** src/workload/x.ts → workload; src/time.ts → time. */
function stageOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length === 1 ? parts[0].replace(/\.ts$/, '') : parts[0];
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? sources(path) : e.name.endsWith('.ts') ? [path] : [];
  });
}

interface Edge {
  from: string;
  to: string;
}

/** Every relative import (static, dynamic, type-only, re-export) of every file under src/, as file → file. */
function importGraph(): Edge[] {
  return sources(SRC).flatMap((from) =>
    ts
      .preProcessFile(readFileSync(from, 'utf8'), true, true)
      .importedFiles.map((f) => f.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => ({ from, to: resolve(dirname(from), name.replace(/\.js$/, '.ts')) })),
  );
}

/** The edges that go up (or sideways between stages of one rank, or into an unlisted stage), worded for the failure message. */
function violations(edges: readonly Edge[]): string[] {
  const out: string[] = [];
  for (const { from, to } of edges) {
    const a = stageOf(from);
    const b = stageOf(to);
    if (a === b) continue;
    const where = `${relative(SRC, from)} imports ${relative(SRC, to)}`;
    const ra = rank.get(a);
    const rb = rank.get(b);
    if (ra === undefined || rb === undefined) out.push(`${where}: stage ${ra === undefined ? a : b} is not in LAYERS; place it there`);
    else if (a === 'sim' && !SIM_MAY_IMPORT.has(b)) out.push(`${where}: the simulator may import only ${[...SIM_MAY_IMPORT].join(', ')}`);
    else if (rb >= ra) out.push(`${where}: ${b} is not below ${a}`);
  }
  return out;
}

describe('layers', () => {
  const edges = importGraph();

  test('the graph is read (a sanity floor, so an empty parse cannot pass)', () => {
    expect(edges.length).toBeGreaterThan(200);
    expect(edges.some((e) => stageOf(e.from) === 'run' && stageOf(e.to) === 'workload')).toBe(true);
  });

  test('every stage imports only stages below it', () => {
    expect(violations(edges)).toEqual([]);
  });

  test('an import up the layers is caught', () => {
    const up = { from: join(SRC, 'spec', 'schema.ts'), to: join(SRC, 'gate', 'compare.ts') };
    const sideways = { from: join(SRC, 'cli', 'main.ts'), to: join(SRC, 'action', 'main.ts') };
    const simUp = { from: join(SRC, 'sim', 'server.ts'), to: join(SRC, 'client', 'sse.ts') };
    const unlisted = { from: join(SRC, 'run', 'run.ts'), to: join(SRC, 'telemetry', 'scrape.ts') };
    expect(violations([up, sideways, simUp, unlisted])).toEqual([
      'spec/schema.ts imports gate/compare.ts: gate is not below spec',
      'cli/main.ts imports action/main.ts: action is not below cli',
      'sim/server.ts imports client/sse.ts: the simulator may import only time, rng, numbers, version, package-root, json-schema, spec',
      'run/run.ts imports telemetry/scrape.ts: stage telemetry is not in LAYERS; place it there',
    ]);
  });
});
