// CPU time the benched browser itself used (Linux /proc): the browser's main process, found by its profile folder
// on the command line, and every process below it (renderer, GPU, utility; workers are threads of the renderer).
// On a machine shared with other work, the wall time of a step grows with the load while the CPU seconds the
// browser spent on it do not: CPU seconds per wall second say how much of the machine the browser got, and a
// change in the CPU seconds themselves is a change in the work.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

export interface Proc {
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

/**
 * The processes of the browser whose command line names `profile`: its main process and every process below it
 * (threadCpu.ts reads their threads). Empty when there is none (or no /proc).
 */
export function browserProcesses(profile: string): Proc[] {
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return [];
  }
  const procs = pids.map(readProc).filter((p): p is Proc => p !== null);
  const roots = procs.filter((p) => {
    try {
      return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').includes(profile);
    } catch {
      return false;
    }
  });
  const children = new Map<number, Proc[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const seen = new Map<number, Proc>();
  const walk = (p: Proc) => {
    if (seen.has(p.pid)) return;
    seen.set(p.pid, p);
    for (const c of children.get(p.pid) ?? []) walk(c);
  };
  roots.forEach(walk);
  return [...seen.values()];
}

/** CPU seconds (user + system) of the browser whose command line names `profile`, and its descendants. */
export function browserCpuSeconds(profile: string): number | null {
  const procs = browserProcesses(profile);
  if (procs.length === 0) return null;
  return procs.reduce((ticks, p) => ticks + p.cpuTicks, 0) / TICKS_PER_SECOND;
}
