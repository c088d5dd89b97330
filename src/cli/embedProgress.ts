// What `cli index` prints while it embeds on stderr: texts done of the total, the rate and the time left, at most
// one line every few seconds (a million texts in batches of 32 would otherwise be 30,000 lines).
import type { FillProgress } from './embeddingCache.ts';

const count = (n: number): string => n.toLocaleString('en-US');

/** "1 h 05 min", "4 min 10 s", "12 s": coarse enough to read at a glance. */
function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** Texts per second of this run's own embedding (texts found in the cache are not counted as speed). */
function fillRate(p: FillProgress): number {
  return p.seconds > 0 ? p.embedded / p.seconds : 0;
}

/** One progress line: "embed 12,345/50,000 texts (2,000 cached), 850 texts/s, 44 s left". */
export function formatFillProgress(p: FillProgress): string {
  const done = p.cached + p.embedded;
  const rate = fillRate(p);
  const left = p.total - done;
  const eta = left === 0 ? 'done' : rate > 0 ? `${formatDuration(left / rate)} left` : 'time left unknown';
  return (
    `embed ${count(done)}/${count(p.total)} texts${p.cached ? ` (${count(p.cached)} cached)` : ''}, ` +
    `${rate.toFixed(0)} texts/s, ${eta}`
  );
}

/**
 * The last line of a fill: how many texts were embedded, in how long, at what rate, and with `cpuSeconds` the CPU
 * this process spent on it (the rate depends on the service and on the machine's load; the CPU time does not).
 */
export function formatFillSummary(p: FillProgress, cpuSeconds?: number): string {
  return (
    `embedded ${count(p.embedded)} texts in ${p.seconds.toFixed(1)} s (${fillRate(p).toFixed(0)} texts/s` +
    `${cpuSeconds === undefined ? '' : `, ${cpuSeconds.toFixed(1)} CPU-s`}), ` +
    `${count(p.cached)} of ${count(p.total)} distinct texts were cached`
  );
}

/** Calls `fn` at most once per `intervalMs` (the first call always goes through). */
export function throttled<T>(
  fn: (value: T) => void,
  intervalMs: number,
  now: () => number = () => performance.now(),
): (value: T) => void {
  let last = -Infinity;
  return (value) => {
    const t = now();
    if (t - last < intervalMs) return;
    last = t;
    fn(value);
  };
}
