/**
 * The stage order of src/: each stage imports only the stages listed above it (the foundation
 * first). test/layers.test.ts enforces it; scripts/docs.mjs writes CONTRIBUTING.md's stage
 * table from it, so the map and the rule are one list.
 */
export interface Layer {
  stages: readonly string[];
  /** What the stage does, for the map. */
  role: string;
}

export const LAYERS: readonly Layer[] = [
  {
    stages: ['time', 'rng', 'numbers', 'version', 'package-root', 'json-schema'],
    role: 'the foundation (src/*.ts): the clock, the seeded PRNG, rounding, the version, the package root, the schema building blocks',
  },
  { stages: ['client'], role: 'the streaming HTTP client and the OpenAI wire format: one streamed POST per request, outcome classes' },
  {
    stages: ['metrics'],
    role: 'the recorder, the metric table (definitions.ts), histograms, and the pure statistics (bootstrap, sample rules)',
  },
  { stages: ['dispatch'], role: 'the open- and closed-loop dispatchers: send each arrival at its time, whatever the server does' },
  { stages: ['spec'], role: 'the spec: its JSON Schema, defaults, resolution and one-line error wording' },
  { stages: ['arrivals'], role: "the arrival plan from the spec's load: rate curves, Poisson/gamma/constant processes, the schedule" },
  { stages: ['workload'], role: 'the requests: synthetic prompts, datasets, length distributions, prefix sharing, token calibration' },
  { stages: ['server'], role: "the engine's own view: /metrics scraping and the network probe, read beside the client's" },
  { stages: ['result'], role: 'the result document: one assembly, its schema, validity checks, merging, reading and writing' },
  { stages: ['gate'], role: 'the verdict: regression rules against a baseline, absolute SLOs, the noise model, calibration files' },
  { stages: ['history'], role: 'nightly history: its file, the change-point search over it, exports to other dashboards' },
  { stages: ['capacity'], role: 'the analysis of a sweep: service floor, knee, saturation, capacity at the SLO, fleet sizing' },
  { stages: ['report'], role: 'console, markdown and HTML reports and their charts' },
  { stages: ['sim'], role: 'the embedded simulator: a server, not a stage; it may use only the foundation and the spec' },
  { stages: ['run'], role: 'one benchmark: readiness, the served model, workers, the measurement, replicates and shards' },
  { stages: ['sweep'], role: 'a series of runs at rising load, and the sweep document' },
  { stages: ['cli', 'action'], role: 'the thin edges: the command line and the GitHub Action' },
];

/** What the simulator may import, whatever its rank. */
export const SIM_MAY_IMPORT: ReadonlySet<string> = new Set(['time', 'rng', 'numbers', 'version', 'package-root', 'json-schema', 'spec']);
