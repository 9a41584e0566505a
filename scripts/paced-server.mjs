#!/usr/bin/env node
// A paced OpenAI-compatible streaming server that is not loadgate's simulator, for the benchmark
// scripts: plain node:http, no code shared with src/. Every completion streams its tokens on its
// own timers, the first `--ttft-ms` after the request arrived and one every `--itl-ms` after that,
// and records when it wrote each one (the truth the client's timestamps are held against),
// joined through the x-request-id header the client sends. Its own event-loop delay is recorded
// too (perf_hooks.monitorEventLoopDelay): a late timer delays a write, but the truth is the write.
// Each token's time is taken when its write has been handed to the kernel (the socket uncorked,
// which writes at once), not before building it: a collection that pauses this server between
// the two would otherwise count as the client's lateness. The time just before the write is
// kept too: on loopback the bytes reach the client's socket inside that write call, so the true
// moment lies between the two, and a shift smaller than the call's span cannot be told apart.
//
//   node scripts/paced-server.mjs --port 0 --ttft-ms 50 --itl-ms 10
//   → prints "listening on http://127.0.0.1:PORT"
//   GET /truth: every request since the last DELETE /truth, as [{ id, first_token, last_token,
//   token_times, first_token_from, last_token_from }] (absolute ms on the clock of
//   loadgate's records, dist/clock.js; `…_from`: just before the write), and the loop delay:
//   { requests, loop_delay_ms: { p50, p99 } }.
import { createServer } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { now } from '../dist/clock.js';

const { values: opt } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'ttft-ms': { type: 'string', default: '50' },
    'itl-ms': { type: 'string', default: '10' },
  },
});
const TTFT_MS = Number(opt['ttft-ms']);
const ITL_MS = Number(opt['itl-ms']);
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
/** Requests since the last DELETE /truth, by x-request-id. */
let truth = new Map();

const chatChunk = (content) =>
  `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;
const textChunk = (text) => `data: ${JSON.stringify({ object: 'text_completion', choices: [{ index: 0, text }] })}\n\n`;
const usageChunk = (prompt, completion) =>
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion } })}\n\n`;

function stream(req, res, body) {
  const n = Math.max(1, Number(body.max_tokens ?? body.max_completion_tokens ?? 16));
  const chunk = req.url.endsWith('/chat/completions') ? chatChunk : textChunk;
  const record = {
    id: String(req.headers['x-request-id'] ?? ''),
    first_token: null,
    last_token: null,
    token_times: [],
    first_token_from: null,
    last_token_from: null,
  };
  if (record.id) truth.set(record.id, record);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': record.id });
  res.flushHeaders();
  let sent = 0;
  let timer;
  res.once('close', () => clearTimeout(timer));
  const token = () => {
    sent++;
    const last = sent === n;
    const from = now();
    res.write(last ? chunk('tok ') + usageChunk(16, n) + 'data: [DONE]\n\n' : chunk('tok '));
    res.socket?.uncork(); // Node corks a chunked write until the callback ends: send it now, then take its time
    const t = now();
    record.first_token ??= t;
    record.first_token_from ??= from;
    record.last_token = t;
    record.last_token_from = from;
    record.token_times.push(t);
    if (last) return res.end();
    timer = setTimeout(token, ITL_MS);
  };
  timer = setTimeout(token, TTFT_MS);
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/v1/models')
    return res.end(JSON.stringify({ object: 'list', data: [{ id: 'bench', object: 'model' }] }));
  if (req.url === '/truth') {
    if (req.method === 'DELETE') {
      truth = new Map();
      loop.reset();
      return res.end('{}');
    }
    const ms = (ns) => Math.round(ns / 1e3) / 1e3;
    return res.end(
      JSON.stringify({ requests: [...truth.values()], loop_delay_ms: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)) } }),
    );
  }
  if (req.method === 'POST' && /\/v1\/(chat\/)?completions$/.test(req.url)) {
    let data = '';
    req.setEncoding('utf8').on('data', (d) => (data += d));
    req.on('end', () => {
      let body;
      try {
        body = JSON.parse(data);
      } catch {
        res.writeHead(400).end('{"error":{"message":"bad json"}}');
        return;
      }
      stream(req, res, body);
    });
    return;
  }
  res.writeHead(404).end('{"error":{"message":"not found"}}');
});
server.keepAliveTimeout = 60_000;
server.listen(Number(opt.port), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.once('SIGTERM', () => process.exit(0));
