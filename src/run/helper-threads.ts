import { readdirSync } from 'node:fs';
import { constants, setPriority } from 'node:os';

/**
 * Every thread the process has when this is called, except the main thread, runs at the lowest
 * priority (nice 19): V8's platform workers, Node's delayed-task thread and inspector thread, and
 * libuv's pool.
 *
 * Of these only V8's platform workers run during a load (the collector's helpers are off,
 * src/run/gc-flags.ts): they compile hot functions with TurboFan (and Maglev on Node 24), and
 * they keep doing so well into the window at light load, where functions take longer to
 * become hot. A compile job that holds the generator's core when one of its sockets becomes
 * readable keeps it for the rest of its scheduler slice, 3–4 ms, at the same priority: a read
 * that late at 100 req/s is most of what moves TTFT p99 there. At nice 19 a thread weighs 15
 * against 1024, so the kernel lets the generator thread take the core from it at once, and the
 * compiles run in the time the generator leaves idle, as they would on a core of their own.
 *
 * Threads started later inherit the priority of the thread that starts them: the generator's
 * worker threads, started by the main thread, run at its priority. Lowering a thread's own
 * priority needs no privilege. Linux only (a thread id is a process id to setpriority there);
 * elsewhere, and for any thread that has ended in between, nothing happens. The CLI and the
 * Action call it first thing; a program that imports the engine keeps its threads as they are.
 * What it did to the reads' lateness: docs/benchmarks.md, "Helper threads yield the core".
 */
export function lowerHelperThreads(): number {
  if (process.platform !== 'linux') return 0;
  let tids: number[];
  try {
    tids = readdirSync('/proc/self/task').map(Number);
  } catch {
    return 0;
  }
  let lowered = 0;
  for (const tid of tids) {
    if (tid === process.pid) continue;
    try {
      setPriority(tid, constants.priority.PRIORITY_LOW);
      lowered++;
    } catch {
      // the thread ended in between
    }
  }
  return lowered;
}
