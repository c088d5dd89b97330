// CPU time the benched browser itself used (Linux /proc): the browser's main process, found by its profile folder
// on the command line, and every process below it (renderer, GPU, utility; workers are threads of the renderer).
// On a machine shared with other work, the wall time of a step grows with the load while the CPU seconds the
// browser spent on it do not: CPU seconds per wall second say how much of the machine the browser got, and a
// change in the CPU seconds themselves is a change in the work.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

interface Proc {
  pid: number;
  ppid: number;
  cpuTicks: number;
}

function readProc(pid: number): Proc | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which is in parentheses and may hold spaces).
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // rest[1] is field 4 (ppid); rest[11], rest[12] are fields 14 and 15 (utime, stime).
    return { pid, ppid: Number(rest[1]), cpuTicks: Number(rest[11]) + Number(rest[12]) };
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) of the browser whose command line names `profile`, and its descendants. */
export function browserCpuSeconds(profile: string): number | null {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return null;
  }
  const procs = pids.map(readProc).filter((p): p is Proc => p !== null);
  const roots = procs.filter((p) => {
    try {
      return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes(profile);
    } catch {
      return false;
    }
  });
  if (roots.length === 0) return null;
  const children = new Map<number, Proc[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const seen = new Set<number>();
  let ticks = 0;
  const walk = (p: Proc) => {
    if (seen.has(p.pid)) return;
    seen.add(p.pid);
    ticks += p.cpuTicks;
    for (const c of children.get(p.pid) ?? []) walk(c);
  };
  roots.forEach(walk);
  return ticks / TICKS_PER_SECOND;
}
