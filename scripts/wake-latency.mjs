#!/usr/bin/env node
// What the generator's own bounds cannot see: how long its sleeping event loop takes to wake once
// the server's bytes are in its socket. Reads a kernel trace of bench:error runs against the
// plain paced server, and their --dump files:
//
//   perf record -a -k CLOCK_MONOTONIC -e sched:sched_switch -e sched:sched_wakeup \
//     -e net:netif_receive_skb -o perf.data -- node scripts/bench-error.mjs --shapes paced64 \
//     --rates 100 --server plain --repeat 2 --seconds 10 --warmup 5 --dump DIR
//   perf script -i perf.data -F comm,pid,tid,cpu,time,event,trace > perf.txt
//   node scripts/wake-latency.mjs perf.txt DIR
//
// Per run, it prints:
// - the wake-ups: each time the server's process delivered data (netif_receive_skb on loopback
//   runs in the sender's context, so that is when the bytes reach the client's socket) while the
//   generator's main thread slept, the time until the kernel woke that thread (sched_wakeup). The
//   thread's run-queue wait (what src/client/run-delay.ts reads) starts only then: the time
//   before it looks to the loop like idle time before the bytes came;
// - the window's first tokens read later than their own bound (late_first_ms plus the delivery
//   floor), and how many of them waited for a wake-up at least as long as they missed by; for
//   each that missed by more than 0.15 ms, when its bytes were delivered, how long the thread
//   took to wake, and how long from the wake to the read.
// Prints figures; asserts nothing.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { f, pct } from './figures.mjs';

const [tracePath, dumpDir] = process.argv.slice(2);
if (!tracePath || !dumpDir) {
  console.error('usage: node scripts/wake-latency.mjs PERF_SCRIPT_TEXT DUMP_DIR (see the head of this file)');
  process.exit(2);
}

const LINE = /^\s*(.+?)\s+(\d+)\/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$/;
/** A TCP segment with no payload (an ACK) on loopback: 52 bytes of IP and TCP headers with timestamps. */
const ACK_LEN = 'len=52';

/** Every event, time in CLOCK_MONOTONIC ms. */
const events = [];
for (const line of readFileSync(tracePath, 'utf8').split('\n')) {
  const m = LINE.exec(line);
  if (m) events.push({ pid: Number(m[2]), tid: Number(m[3]), t: Number(m[5]) * 1000, ev: m[6], rest: m[7] });
}

for (const file of readdirSync(dumpDir)
  .filter((n) => n.endsWith('.json'))
  .sort()) {
  const dump = JSON.parse(readFileSync(join(dumpDir, file), 'utf8'));
  const { generator_pid: client, server_pid: server, clock_offset_ms: offset } = dump;
  if (!client || !server || !Number.isFinite(offset)) {
    console.log(`${file}: no processes or clock offset in it (dumped by an older bench:error)`);
    continue;
  }
  // Walk the trace: the client's main thread (tid = pid) asleep or not; each delivery by a server
  // thread while it slept, matched with the wake-up that followed.
  let asleep = false;
  let deliveredAt = NaN;
  const wakes = [];
  /** [delivered, woken] of each wake-up, for the late reads below. */
  const pairs = [];
  for (const e of events) {
    if (e.ev === 'sched:sched_switch') {
      if (e.rest.includes(`prev_pid=${client} `) && /prev_state=S\b/.test(e.rest)) [asleep, deliveredAt] = [true, NaN];
      if (e.rest.includes(`next_pid=${client} `)) asleep = false;
    } else if (e.ev === 'net:netif_receive_skb' && e.pid === server && asleep && Number.isNaN(deliveredAt) && !e.rest.includes(ACK_LEN)) {
      deliveredAt = e.t;
    } else if (e.ev === 'sched:sched_wakeup' && e.rest.includes(` pid=${client} `)) {
      if (!Number.isNaN(deliveredAt)) {
        wakes.push(e.t - deliveredAt);
        pairs.push([deliveredAt, e.t]);
      }
      deliveredAt = NaN;
    }
  }
  wakes.sort((a, b) => a - b);
  const us = (ms) => f(ms * 1000, 0);
  console.log(
    `${file}: ${wakes.length} wake-ups by the server's bytes: p50 ${us(pct(wakes, 50))} / p90 ${us(pct(wakes, 90))} / p99 ${us(pct(wakes, 99))} / p99.9 ${us(pct(wakes, 99.9))} / max ${us(wakes.at(-1))} µs; over 1 ms: ${wakes.filter((w) => w > 1).length}`,
  );
  const h = dump.result.generator.timestamp_error_ms?.delivery_ms ?? 0;
  // Every first token read later than its own bound (as bench:error's table counts them), and of
  // those how many waited for a wake-up at least as long as they missed by.
  let misses = 0;
  let byWake = 0;
  const late = [];
  for (const [client, truth, writeEnd, bound, fromStart] of dump.ttft) {
    if (fromStart === null) continue;
    const lateness = client - truth;
    const over = lateness - (bound + h);
    if (over <= 0.001) continue;
    misses++;
    const writeStart = writeEnd - truth + fromStart - offset;
    const read = writeEnd - truth + client - offset;
    const pair = pairs.find(([d, w]) => d >= writeStart && d <= writeEnd - offset && w <= read);
    if (pair && pair[1] - pair[0] >= over) byWake++;
    if (over > 0.15)
      late.push(
        `  read ${f(lateness, 3)} ms after the write, own bound ${f(bound + h, 3)} ms: ` +
          (pair
            ? `delivered ${us(pair[0] - writeStart)} µs into the write, thread woken ${us(pair[1] - pair[0])} µs later, read ${us(read - pair[1])} µs after that`
            : 'the thread was awake when its bytes came'),
      );
  }
  console.log(
    `  first tokens read later than their own bound: ${misses}, of which ${byWake} waited for a wake-up at least as long as the miss; by more than 0.15 ms: ${late.length}`,
  );
  for (const l of late) console.log(l);
}
