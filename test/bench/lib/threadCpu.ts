// CPU time per thread of the benched browser (Linux /proc/<pid>/task/<tid>/stat), so a bench can say which thread
// a slow drop's time went to: the page's main thread, a worker, the browser process's main or IndexedDB thread.
// Threads are named by their process's role (--type= on its command line, "browser" for the main process) and
// the thread's own name (comm: CrBrowserMain, CrRendererMain, DedicatedWorker thread, IndexedDB, …). Two threads
// of one name in one role are told apart by their thread id.
import { readdirSync, readFileSync } from 'node:fs';
import { browserProcesses } from './cpuTime.ts';

const TICKS_PER_SECOND = 100;

/** CPU seconds per thread, keyed "role/thread name/tid". */
export type ThreadCpu = Map<string, number>;

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The role of a Chromium process from its command line: browser, renderer, gpu-process, utility, … */
function role(cmdline: string): string {
  const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
  return type ?? 'browser';
}

/** Every thread's CPU seconds of the browser whose command line names `profile`, and of its descendants. */
export function threadCpu(profile: string): ThreadCpu {
  const out: ThreadCpu = new Map();
  for (const { pid } of browserProcesses(profile)) {
    const r = role((read(`/proc/${pid}/cmdline`) ?? '').replaceAll('\0', ' '));
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const stat = read(`/proc/${pid}/task/${tid}/stat`);
      if (!stat) continue;
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(rest[11]) + Number(rest[12])) / TICKS_PER_SECOND;
      out.set(`${r}/${name}/${tid}`, seconds);
    }
  }
  return out;
}

/** CPU seconds per thread between two readings, busiest first, those above `minSeconds`. */
export function threadDelta(
  before: ThreadCpu,
  after: ThreadCpu,
  minSeconds = 0.05,
): { thread: string; seconds: number }[] {
  return [...after]
    .map(([thread, s]) => ({ thread, seconds: Number((s - (before.get(thread) ?? 0)).toFixed(2)) }))
    .filter((t) => t.seconds >= minSeconds)
    .sort((a, b) => b.seconds - a.seconds);
}

/** "renderer/CrRendererMain 12.3 s, browser/IndexedDB 8.1 s, …" (tids dropped). */
export function threadLine(delta: { thread: string; seconds: number }[], top = 8): string {
  return delta
    .slice(0, top)
    .map((t) => `${t.thread.replace(/\/\d+$/, '')} ${t.seconds.toFixed(1)} s`)
    .join(', ');
}
