#!/usr/bin/env node
// The per-event hot path in isolation: SSE framing plus reading each chunk, side by side for
// the byte scanner loadgate uses (readEvent) and the JSON.parse reference (parseEvent on the
// decoded text). Prints time per event and young-generation collections; asserts nothing.
//
//   npm run bench:events
import { build } from 'esbuild';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { root } from './sim-process.mjs';

const dir = mkdtempSync(join(tmpdir(), 'loadgate-bench-events-'));
const entry = join(dir, 'entry.ts');
writeFileSync(
  entry,
  `export { SseFramer } from '${root}src/client/sse.ts';\nexport { newStreamEvent, parseEvent, readEvent } from '${root}src/client/openai.ts';\n`,
);
await build({
  entryPoints: [entry],
  outfile: join(dir, 'hot-path.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  logLevel: 'warning',
});
const { SseFramer, newStreamEvent, parseEvent, readEvent } = await import(join(dir, 'hot-path.mjs'));

// One paced 64-token chat stream as a vLLM-style server sends it: one read per event.
const chunk = (i, delta) =>
  `data: {"id":"chatcmpl-${i}","object":"chat.completion.chunk","created":1795986737,"model":"bench","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":null}]}\n\n`;
const reads = [
  chunk(0, '{"role":"assistant","content":""}'),
  ...Array.from({ length: 64 }, (_, i) => chunk(i, '{"content":" tok"}')),
  'data: {"id":"chatcmpl-x","object":"chat.completion.chunk","created":1795986737,"model":"bench","choices":[],"usage":{"prompt_tokens":16,"completion_tokens":64,"total_tokens":80}}\n\n',
  'data: [DONE]\n\n',
].map((s) => Buffer.from(s));

const ways = {
  'bytes → readEvent (loadgate)': (ev) => ({ onEvent: (d, s, e) => readEvent(d, s, e, ev) }),
  'text → JSON.parse (reference)': (ev) => ({ onEvent: (d, s, e) => parseEvent(d.toString('utf8', s, e), ev) }),
};

let scavenges = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
}).observe({ entryTypes: ['gc'] });

function run(makeSink, streams) {
  const ev = newStreamEvent();
  const sink = makeSink(ev);
  let content = 0;
  const counting = {
    onEvent: (d, n, e) => {
      sink.onEvent(d, n, e);
      if (ev.content) content++;
    },
  };
  for (let s = 0; s < streams; s++) {
    const f = new SseFramer(counting);
    for (const r of reads) f.push(r);
    f.end();
  }
  return content;
}

const STREAMS = 20000;
const events = STREAMS * reads.length;
const results = {};
for (let round = 0; round < 3; round++) {
  for (const [name, makeSink] of Object.entries(ways)) {
    await new Promise((r) => setTimeout(r, 50)); // let observed GC entries land in their own round
    scavenges = 0;
    const t = process.hrtime.bigint();
    const content = run(makeSink, STREAMS);
    const ns = Number(process.hrtime.bigint() - t) / events;
    await new Promise((r) => setTimeout(r, 50));
    if (content !== STREAMS * 64) throw new Error(`${name}: ${content} content events, expected ${STREAMS * 64}`);
    if (round > 0) results[name] = { ns: Math.min(results[name]?.ns ?? Infinity, ns), scavenges };
  }
}
console.log(
  `loadgate bench:events — ${STREAMS} paced chat streams of ${reads.length} events, one read per event (best of 2 rounds after a warm-up)`,
);
for (const [name, r] of Object.entries(results))
  console.log(
    `${name.padEnd(32)} ${r.ns.toFixed(0).padStart(5)} ns/event · ${String(r.scavenges).padStart(4)} young-generation GCs per ${(events / 1e6).toFixed(2)}M events`,
  );
const [a, b] = Object.values(results);
console.log(`ratio: the byte scanner takes ${(a.ns / b.ns).toFixed(2)}× the time of JSON.parse per event`);
