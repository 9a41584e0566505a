#!/usr/bin/env node
// Where the generator's garbage comes from: V8's sampling heap profiler, counting the objects
// collected since (young and old), which a heap snapshot or Node's --heap-prof leaves out.
//
// As a preload, it samples the process it is loaded into from START to STOP ms after start (or
// to its exit) and writes the profile to OUT:
//
//   LOADGATE_HEAP_SAMPLE=OUT.json,6000,14000 node --import ./scripts/heap-sample.mjs \
//     dist/cli.js run SPEC --workers 1
//
// Run directly, it prints a profile's allocation by function, per request when told how many
// requests the sampled span sent (the run's rate × the span):
//
//   node scripts/heap-sample.mjs OUT.json 3200
//
// Prints figures; asserts nothing.
import inspector from 'node:inspector';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const INTERVAL_BYTES = 1024;

if (process.argv[1] === fileURLToPath(import.meta.url)) report(process.argv[2], Number(process.argv[3] ?? 1));
else if (process.env.LOADGATE_HEAP_SAMPLE) sample(process.env.LOADGATE_HEAP_SAMPLE);

function sample(setting) {
  const [out, start = '0', stop = 'Infinity'] = setting.split(',');
  // The processes this one starts are not sampled.
  delete process.env.LOADGATE_HEAP_SAMPLE;
  const session = new inspector.Session();
  session.connect();
  session.post('HeapProfiler.enable');
  let state = 'waiting';
  const begin = () => {
    state = 'sampling';
    session.post('HeapProfiler.startSampling', {
      samplingInterval: INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  };
  const end = () => {
    if (state !== 'sampling') return;
    state = 'done';
    session.post('HeapProfiler.stopSampling', (error, r) => {
      if (error) process.stderr.write(`heap-sample: ${error.message}\n`);
      else writeFileSync(out, JSON.stringify(r.profile));
    });
  };
  setTimeout(begin, Number(start)).unref();
  if (Number.isFinite(Number(stop))) setTimeout(end, Number(stop)).unref();
  process.on('beforeExit', end);
}

function report(file, requests) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byFunction = new Map();
  let total = 0;
  const walk = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.split('/').at(-1)}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children ?? []) walk(child);
  };
  walk(profile.head);
  const kb = (bytes) => (bytes / requests / 1000).toFixed(1);
  console.log(`${(total / 1e6).toFixed(1)} MB allocated while sampled: ${kb(total)} KB a request over ${requests} requests`);
  console.log('| where (function, bundle line) | KB a request | share |');
  console.log('|---|---|---|');
  for (const [name, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.log(`| ${name} | ${kb(bytes)} | ${((100 * bytes) / total).toFixed(1)} % |`);
}
