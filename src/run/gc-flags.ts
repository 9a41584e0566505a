import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's garbage collector, set for a load generator: its work on the thread that allocates, and
 * few full collections.
 *
 * V8 hands parts of each garbage collection to helper threads: the young generation's parallel
 * scavenge, the sweeping of dead ArrayBuffers (one per few socket reads here:
 * src/client/direct-reads.ts) and of the old generation, concurrent marking. On a core that a
 * generator thread keeps busy, a helper is one more runnable thread, and the kernel gives it a
 * whole scheduler slice: the generator stops reading its sockets for several milliseconds at a
 * time, mid-stream, while it is not collecting anything itself. Its reads then come late in
 * bursts, and the requests whose first token fell in one show it at TTFT p99.
 *
 * Every core a run may use is meant for a generator thread (by default one per core, the
 * simulator taking one of them when it runs here), so the helpers would always land on one.
 * With these off each thread collects its own heap in its own time: a scavenge takes as long as
 * it did on a single core, and nothing else takes the core away. What that does to the
 * lateness of reads near one core's ceiling: docs/benchmarks.md, "V8's helper threads off".
 *
 * Without a concurrent marker a full collection's final pause is longer, and it still measured
 * better than leaving the marker on (same page): the marker's slices cost more than the pause.
 *
 * Flags are the process's, set once at its start, while no full collection is under way:
 * changing one that a collection in progress depends on can stop V8 (`--single-threaded-gc`,
 * which would also turn off the embedder heap's concurrent marking, does; so does
 * `--no-parallel-marking`). Parallel marking in a full collection's final pause stays: it is a
 * pause either way.
 */
const SINGLE_THREADED_GC_FLAGS = [
  '--no-parallel-scavenge',
  '--no-concurrent-array-buffer-sweeping',
  '--no-concurrent-sweeping',
  '--no-concurrent-marking',
  '--no-parallel-compaction',
  '--no-parallel-pointer-update',
];

/**
 * How far the old generation may grow before the next full collection, as a factor of what the
 * last one left alive: 1 + HEAP_GROWING_PERCENT / 100.
 *
 * A request in flight lives for its whole stream (0.7 s for 64 tokens at 10 ms), longer than two
 * scavenges apart (about 0.1 s near one core's ceiling), so everything it holds is promoted to
 * the old generation and dies there: at 900 req/s the old generation fills with 5–8 MB of such
 * garbage a second. V8 picks the factor from 1.1 to 4 by how fast it marks against how fast the
 * program allocates, and for this churn it picked about 1.5: a full collection every 2 s of load,
 * each one 20–30 ms of marking on the generator thread and an atomic pause of 5–12 ms, within
 * about 100 ms, in which every read queued behind it comes late. Near the ceiling those bursts
 * were the TTFT p99 of the requests whose first token fell in one.
 *
 * 300 pins the factor at 4, V8's own largest. A full collection marks what is alive, so its
 * marking costs about the same whatever garbage lies around it; its final pause grows with the
 * heap it sweeps. With a live heap of about 25 MB, at 900 req/s: one full collection in 18 s
 * instead of one in 2, its pause 17 ms instead of 5–13, and the process's resident memory
 * peaking at about 240 MB instead of 150. What that did to TTFT p99: docs/benchmarks.md, "Fewer
 * full collections".
 *
 * V8 reads it each time a collection sets the next limit, so setting it at start takes effect
 * from the first.
 */
const HEAP_GROWING_PERCENT = 300;

/** Sets the flags above; first thing in the CLI and the Action, before any load. */
export function tuneGarbageCollection(): void {
  for (const flag of SINGLE_THREADED_GC_FLAGS) setFlagsFromString(flag);
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // V8 then puts a `gc` function in every context made from now on, in every thread: how
  // collectFullyIfTuned reaches it.
  setFlagsFromString('--expose-gc');
}

let fullCollection: (() => void) | null | undefined;

/**
 * A full collection of this thread's heap, now, where the process tuned its collector
 * (tuneGarbageCollection: the CLI and the Action); elsewhere, as in a program that imports the
 * engine, nothing.
 *
 * Each generator thread calls it shortly before its window opens (src/run/measure.ts), so that
 * every window starts from a heap just collected, whatever the warmup left. With the factor
 * above a full collection comes every ~18 s at 900 paced req/s on one core, so one fell into
 * most 10 s windows, at a point set by the warmup's garbage: its final pause of 8–17 ms delayed
 * every read queued behind it, and the requests whose first token fell in it were the TTFT p99's
 * largest share. Taken before the window, the next one comes after a window of that length, and
 * runs that are compared start alike (docs/benchmarks.md, "A full collection before the window").
 */
export function collectFullyIfTuned(): void {
  if (fullCollection === undefined) fullCollection = runInNewContext('typeof gc === "function" ? gc : null') as (() => void) | null;
  fullCollection?.();
}
