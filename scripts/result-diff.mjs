#!/usr/bin/env node
// Shows that a change to how results are assembled left them as they were: the same seeded
// runs against the embedded simulator, written by two builds, compared with everything that
// depends on the clock (timings, timing histograms, the generator's own figures) or on chance
// per run (ids, salts, ports) normalized away. Counts, classes, token-length histograms,
// structure and which fields are present must match exactly.
//
//   npm run build && node scripts/result-diff.mjs record out/before   # with the old build
//   npm run build && node scripts/result-diff.mjs record out/after    # with the new build
//   node scripts/result-diff.mjs compare out/before out/after          # prints differences; exit 1 if any
//   node scripts/result-diff.mjs remerge out/before                    # merges before's inputs with this build:
//                                                                      # merge is pure, so it must be identical
//
// `record` runs (about 2 minutes): the quick start (run.json), the quick start with
// --workers 2 (workers.json), `merge` of those two as replicates (merged.json) and as shards
// (merged-shards.json), and a spec with load.replicates: 2 (replicates.json).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const hdr = require('hdr-histogram-js');
const root = new URL('..', import.meta.url).pathname;
const FILES = ['run.json', 'workers.json', 'merged.json', 'merged-shards.json', 'replicates.json'];

function cli(args) {
  const r = spawnSync(process.execPath, [join(root, 'bin/loadgate.js'), ...args], { encoding: 'utf8', cwd: root });
  // 0 pass, 1 fail, 2 inconclusive: all write a result. 3 is an error.
  if (r.status === null || r.status > 2) throw new Error(`loadgate ${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  return r;
}

function record(dir) {
  mkdirSync(dir, { recursive: true });
  const quick = join(root, 'examples/quickstart.yml');
  cli(['run', quick, '--out', join(dir, 'run.json')]);
  cli(['run', quick, '--workers', '2', '--out', join(dir, 'workers.json')]);
  merges(dir, dir);
  const spec = readFileSync(quick, 'utf8')
    .replace('name: quickstart', 'name: quickstart-replicates')
    .replace(/steady: 20s/, 'steady: 6s\n  replicates: 2');
  writeFileSync(join(dir, 'replicates.yml'), spec);
  cli(['run', join(dir, 'replicates.yml'), '--out', join(dir, 'replicates.json')]);
}

function merges(inputs, out) {
  const ab = [join(inputs, 'run.json'), join(inputs, 'workers.json')];
  cli(['merge', ...ab, '--out', join(out, 'merged.json')]);
  cli(['merge', ...ab, '--mode', 'shards', '--out', join(out, 'merged-shards.json')]);
}

const TIMING_HISTOGRAMS = new Set([
  'ttft',
  'ttftFromSend',
  'timeToFirstAnswer',
  'tpot',
  'itl',
  'e2e',
  'normalized',
  'scheduleLag',
  'poolWait',
]);
/** The event loop's own turns and lateness: even how many there were depends on the machine. */
const LOOP_HISTOGRAMS = new Set(['loopTurns', 'loopReadTurns', 'loopLateness']);
/** Validity checks whose outcome is a timing (a busy machine may flip them). */
const TIMING_CHECKS = new Set([
  'achieved_rate',
  'schedule_lag',
  'event_loop_delay',
  'generator_cpu',
  'pool_wait',
  'littles_law',
  'merge_inputs',
]);
const T = '<timing>';
const ID = '<id>';
const typed = (v) => (v === null ? null : T);

/** A latency summary: its sample count stays, its figures are timings. */
const latency = (s) => (s === null || s === undefined ? s : { ...Object.fromEntries(Object.keys(s).map((k) => [k, T])), count: s.count });
const mapValues = (o, f) => (o === undefined ? o : Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v, k)])));
const sum = (a) => a.reduce((x, y) => x + y, 0);

export function normalize(r) {
  const n = structuredClone(r);
  n.created_at = ID;
  n.run_id = ID;
  n.target.url = n.target.simulator ? ID : n.target.url; // the embedded simulator's port
  n.tool.version = ID;
  n.load.achieved_rate_per_s = T;
  n.metrics = mapValues(n.metrics, latency);
  n.throughput = mapValues(n.throughput, () => T);
  n.goodput.rate_per_s = T;
  // Which requests met the SLO is a timing; so is which kept-alive connection's fate the client saw
  // (reused, or closed by the server) before the run ended.
  n.goodput.requests = T;
  n.goodput.fraction = T;
  if (n.requests.keep_alive) n.requests.keep_alive.responses_observed = T;
  n.generator = mapValues(n.generator, (v) => (v !== null && typeof v === 'object' ? mapValues(v, typed) : typed(v)));
  n.littles_law = mapValues(n.littles_law, typed);
  n.validity.checks = n.validity.checks.map((c) => ({
    name: c.name,
    ok: TIMING_CHECKS.has(c.name) ? T : c.ok,
    message: TIMING_CHECKS.has(c.name) ? T : c.message,
  }));
  n.validity.valid = T;
  // Which second a request went out or ended in is a timing; how many went out and ended is not.
  // Replicates' series merge as the mean of the inputs present at each second, so when one input's
  // series is a second longer (its last request went out late) the merged total moves by a fraction.
  const replicates = n.merge?.mode === 'replicates' || n.replicates !== undefined;
  n.timeseries = mapValues(n.timeseries, (v, k) => (k === 'interval_s' ? v : replicates ? { total: T } : { total: sum(v) }));
  n.histograms = mapValues(n.histograms, (v, k) => {
    const h = hdr.decodeFromCompressedBase64(v, 32, false);
    if (LOOP_HISTOGRAMS.has(k)) return T;
    if (TIMING_HISTOGRAMS.has(k)) return { count: h.totalCount };
    // Token lengths: the whole distribution, bucket by bucket.
    const distribution = createHash('sha256').update(h.outputPercentileDistribution()).digest('hex').slice(0, 16);
    return { count: h.totalCount, mean: h.mean, max: h.maxValue, distribution };
  });
  if (n.workload.plan) n.workload.plan.salt = ID;
  // Segments: how many requests each holds stays; its percentiles are timings.
  n.segments = mapValues(n.segments, (v) => (v !== null && typeof v === 'object' ? { ...mapValues(v, () => T), n: v.n } : v));
  // The server's own view and the network probe: which scrape saw which request is a timing, and
  // so is every latency the server reports; the engine, how often it was scraped and whether it was there stay.
  if (n.server) n.server = { engine: n.server.engine, interval_s: n.server.interval_s, available: n.server.available, url: ID, rest: T };
  if (n.network) n.network = { probes: n.network.probes, rest: T };
  if (n.replicates) n.replicates.cv = mapValues(n.replicates.cv, () => T);
  return n;
}

/** Every leaf path where a and b differ. */
function differences(a, b, path = '', out = []) {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const p = Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
      if (!(k in a)) out.push(`${p}: only after: ${JSON.stringify(b[k])}`);
      else if (!(k in b)) out.push(`${p}: only before: ${JSON.stringify(a[k])}`);
      else differences(a[k], b[k], p, out);
    }
  } else if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${path}: ${JSON.stringify(a)} → ${JSON.stringify(b)}`);
  return out;
}

const read = (p) => JSON.parse(readFileSync(p, 'utf8'));

function compare(before, after) {
  let total = 0;
  for (const f of FILES) {
    const d = differences(normalize(read(join(before, f))), normalize(read(join(after, f))));
    total += d.length;
    console.log(`${f}: ${d.length === 0 ? 'identical apart from timings and ids' : `${d.length} difference(s)`}`);
    for (const line of d) console.log(`  ${line}`);
  }
  return total;
}

function remerge(before) {
  const out = join(before, 'remerged');
  mkdirSync(out, { recursive: true });
  merges(before, out);
  let total = 0;
  for (const f of ['merged.json', 'merged-shards.json']) {
    const a = read(join(before, f));
    const b = read(join(out, f));
    // The merge stamps no clock and no id of its own; only the tool's version could differ.
    a.tool.version = b.tool.version = ID;
    const d = differences(a, b);
    total += d.length;
    console.log(`${f} re-merged from the same inputs: ${d.length === 0 ? 'identical, field by field' : `${d.length} difference(s)`}`);
    for (const line of d) console.log(`  ${line}`);
  }
  return total;
}

function run([cmd, a, b]) {
  if (cmd === 'record' && a) record(a);
  else if (cmd === 'compare' && a && b) process.exitCode = compare(a, b) > 0 ? 1 : 0;
  else if (cmd === 'remerge' && a) process.exitCode = remerge(a) > 0 ? 1 : 0;
  else {
    console.error('usage: result-diff.mjs record DIR | compare BEFORE AFTER | remerge BEFORE');
    process.exitCode = 3;
  }
}

// Run as a script; imported (for normalize), it does nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) run(process.argv.slice(2));
