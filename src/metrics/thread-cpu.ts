import { readFileSync } from 'node:fs';

/** /proc reports CPU in USER_HZ ticks, which Linux fixes at 100 per second for userspace. */
const PROC_MS_PER_TICK = 10;

type ThreadCpuUsage = () => NodeJS.CpuUsage;

/**
 * CPU time (user + system, ms) of the calling thread alone: a generator thread's own load,
 * which process.cpuUsage() cannot give once other threads (workers, GC helpers) run beside it.
 * Node ≥ 23.9 (the Action's runtime) has process.threadCpuUsage; Node 20 on Linux reads
 * /proc/thread-self/stat (10 ms resolution, fine over a run). Null where neither exists.
 */
export function threadCpuMs(): number | null {
  const own = (process as { threadCpuUsage?: ThreadCpuUsage }).threadCpuUsage;
  if (typeof own === 'function') {
    const u = own.call(process);
    return (u.user + u.system) / 1000;
  }
  return procThreadCpuMs();
}

function procThreadCpuMs(): number | null {
  let stat: string;
  try {
    stat = readFileSync('/proc/thread-self/stat', 'utf8');
  } catch {
    return null;
  }
  // Fields after the parenthesised command name (which may itself hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * PROC_MS_PER_TICK : null;
}
