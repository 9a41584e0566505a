#!/usr/bin/env node
// Writes examples/data/mooncake-sample.jsonl: a small Mooncake-format trace, seeded, so the
// file is the same on every run. 120 arrivals over 8 s in bursts and lulls (gamma gaps of
// shape 0.4), prompts of 1–6 blocks of 512 tokens, a third of them opening with one of four
// shared documents (the blocks a prefix cache can reuse), outputs of 16–128 tokens.
//
//   node scripts/make-trace-sample.mjs [out.jsonl]
import { writeFileSync } from 'node:fs';

/** mulberry32: a tiny seeded PRNG, enough for a sample file. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Gamma(shape k < 1) by Ahrens–Dieter's boost: Gamma(k) = Gamma(k + 1) · U^(1/k), Gamma(k + 1) by Marsaglia–Tsang. */
function gamma(next, k) {
  const d = k + 1 - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x, v;
    do {
      x = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = next();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v * Math.pow(next(), 1 / k);
  }
}

const N = 120;
const SPAN_MS = 8000;
const next = rng(26);
const gaps = Array.from({ length: N }, () => gamma(next, 0.4));
const scale = (SPAN_MS - 100) / gaps.reduce((a, b) => a + b, 0);
const documents = [0, 1, 2, 3].map((d) => Array.from({ length: 2 + d }, (_, b) => d * 10 + b));
let t = 50;
let nextBlock = 100;
const lines = [];
for (let i = 0; i < N; i++) {
  const blocks = 1 + Math.floor(next() * 6);
  const shared = next() < 1 / 3 ? documents[Math.floor(next() * documents.length)] : [];
  const own = Array.from({ length: Math.max(1, blocks - shared.length) }, () => nextBlock++);
  const hashIds = [...shared, ...own];
  const inputLength = 512 * (hashIds.length - 1) + 64 + Math.floor(next() * 448);
  const outputLength = 16 + Math.floor(next() * 113);
  lines.push(JSON.stringify({ timestamp: Math.round(t), input_length: inputLength, output_length: outputLength, hash_ids: hashIds }));
  t += gaps[i] * scale;
}
const out = process.argv[2] ?? new URL('../examples/data/mooncake-sample.jsonl', import.meta.url);
writeFileSync(out, lines.join('\n') + '\n');
