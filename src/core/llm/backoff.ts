// Retry timing: exponential back-off with full jitter, and the server's Retry-After when it gives one.

export interface BackoffOptions {
  /** First delay in ms before jitter. */
  baseMs: number;
  /** Upper bound of any computed delay. */
  maxMs: number;
}

/** A server asking for more than this is treated as asking for this (the user can still cancel). */
const MAX_RETRY_AFTER_MS = 120_000;

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/** Delay before retry number `attempt` (0-based). `random` in [0,1) is injectable for tests. */
export function backoffDelay(
  attempt: number,
  retryAfterS: number | undefined,
  opts: BackoffOptions = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  if (retryAfterS !== undefined && retryAfterS >= 0) {
    // The server knows best, but a small jitter keeps parallel workers from waking together.
    return Math.min(retryAfterS * 1000, MAX_RETRY_AFTER_MS) + Math.floor(random() * 100);
  }
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** attempt);
  // "Equal jitter": at least half the ceiling, so a retry never fires immediately.
  return Math.floor(ceiling / 2 + random() * (ceiling / 2));
}

/** Parses Retry-After: delta seconds or an HTTP date. Returns seconds, or undefined. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - now) / 1000);
}

/** Sleeps `ms`, rejecting early if the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
