import { setFlagsFromString } from 'node:v8';

/**
 * V8 hands parts of each garbage collection to helper threads: the young generation's parallel
 * scavenge, the sweeping of dead ArrayBuffers (one per socket read here) and of the old
 * generation, concurrent marking. On a core that a generator thread keeps busy, a helper is one
 * more runnable thread, and the kernel gives it a whole scheduler slice: the generator stops
 * reading its sockets for several milliseconds at a time, mid-stream, while it is not collecting
 * anything itself. Its reads then come late in bursts, and the requests whose first token fell
 * in one show it at TTFT p99.
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

export function collectGarbageOnOwnThreads(): void {
  for (const flag of SINGLE_THREADED_GC_FLAGS) setFlagsFromString(flag);
}
