// Every IndexedDB write the ingest pipeline makes goes through guardWrite: a write the browser refuses for lack of
// space (QuotaExceededError, which Dexie keeps as the error's name or wraps as `inner`) or one that does not settle
// while the browser's storage has stopped answering stops indexing with a StorageStopError that names the file,
// instead of failing the file (it is not at fault) or freezing the queue. Transactions are all-or-nothing, so what
// was stored before stays complete.
import { messageOf } from '../../core/errors.ts';

/**
 * A write that has not settled after this long is checked: if the browser's storage still answers another request
 * (a busy machine: "the browser did not finish storing" stopped good drops at load 40–67, docs/results/trust.md),
 * it is given as long again, up to STORE_CEILING_FACTOR times; if the storage does not answer either, it is stuck.
 */
export const STORE_TIMEOUT_MS = 30_000;

/** A write that never settles while the storage answers is stopped after this many times STORE_TIMEOUT_MS. */
export const STORE_CEILING_FACTOR = 10;

export type StorageStopCause = 'storage-full' | 'storage-timeout';

/** A time limit as a message says it: `500 ms`, `30 s`, `5 min`. */
export function seconds(ms: number): string {
  if (ms >= 120_000) return `${Math.round(ms / 60_000)} min`;
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

export class StorageStopError extends Error {
  constructor(
    readonly kind: StorageStopCause,
    /** What was being stored, for the message: `"notes.md"`, `the vectors of "notes.md"`, `the concept graph`. */
    subject: string,
    /** The file whose write was refused, when there is one. */
    readonly file: string | undefined,
    timeoutMs: number,
    /** Why the wait ended (a timeout): its storage stopped answering, or it answered but this write never ended. */
    why = '',
  ) {
    super(
      kind === 'storage-full'
        ? `the browser refused to store more: storage is full for this site (while storing ${subject}). ` +
            'Documents stored so far are complete and the rest of the queue is kept: free space or remove ' +
            'documents, then reload the page to resume'
        : `the browser did not finish storing ${subject} within ${seconds(timeoutMs)}${why}, so indexing ` +
            'stopped. Documents stored so far are complete and the rest of the queue is kept: reload the page to resume',
    );
    this.name = 'StorageStopError';
  }
}

/** True for a quota error as IndexedDB or Dexie report it (directly, or wrapped as `inner`). */
export function isQuotaError(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 4; depth++) {
    if (typeof e !== 'object') return false;
    if ((e as { name?: unknown }).name === 'QuotaExceededError') return true;
    e = (e as { inner?: unknown }).inner;
  }
  return false;
}

/** An error as the user reads it: a full disk or quota said plainly. */
export function describeError(error: unknown): string {
  if (isQuotaError(error))
    return "the browser's storage for this site is full (free space, or remove documents)";
  return messageOf(error);
}

/**
 * Runs one write; turns a quota error or a write that hangs into a StorageStopError. Without `storageAnswers`, a
 * write unsettled after `timeoutMs` hangs. With it, the storage is asked something else then (a read no write of the
 * pipeline blocks): answered within `timeoutMs`, the write is slow, not stuck, and waits another `timeoutMs`, up to
 * STORE_CEILING_FACTOR times in all. An infinite limit guards only against the quota (for work that computes before
 * it writes, like a graph rebuild).
 */
export async function guardWrite<T>(
  write: () => Promise<T>,
  what: { subject: string; file?: string },
  timeoutMs: number = STORE_TIMEOUT_MS,
  storageAnswers?: () => Promise<unknown>,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  const stop = (waitedMs: number, why = '') =>
    new StorageStopError('storage-timeout', what.subject, what.file, waitedMs, why);
  const hung = new Promise<never>((_, reject) => {
    if (!Number.isFinite(timeoutMs)) return;
    const wait = (periods: number): void => {
      timer = setTimeout(() => {
        if (!storageAnswers) return reject(stop(timeoutMs));
        if (periods >= STORE_CEILING_FACTOR) {
          return reject(
            stop(periods * timeoutMs, ' (its storage answered meanwhile; this write did not end)'),
          );
        }
        void answersWithin(storageAnswers, timeoutMs).then((answered) => {
          if (settled) return;
          if (answered) wait(periods + 1);
          else reject(stop((periods + 1) * timeoutMs, ', and its storage stopped answering'));
        });
      }, timeoutMs);
    };
    wait(1);
  });
  try {
    return await Promise.race([write(), hung]);
  } catch (error) {
    if (error instanceof StorageStopError) throw error;
    if (isQuotaError(error)) throw new StorageStopError('storage-full', what.subject, what.file, timeoutMs);
    throw error;
  } finally {
    settled = true;
    clearTimeout(timer);
  }
}

/** Whether `request` settles (either way: an error is an answer too) within `ms`. */
function answersWithin(request: () => Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    request().then(
      () => (clearTimeout(timer), resolve(true)),
      () => (clearTimeout(timer), resolve(true)),
    );
  });
}

/**
 * A failed bundle import in the person's words. The import validates everything first (BundleError, already in
 * words), then writes in one transaction, so whatever failed while writing, nothing of the bundle was stored: a
 * full disk says "QuotaExceededError", a record too deep for the browser's structured clone "Maximum call stack
 * size exceeded" (validation refuses those now; this covers what it cannot foresee), other refusals a DOMException
 * name. Returns the error unchanged when it already says what happened.
 */
export function importFailure(error: unknown): Error {
  const nothingStored = 'Nothing of the bundle was stored; the library is as it was';
  if (isQuotaError(error)) {
    return new Error(
      `the browser refused to store the bundle: storage is full for this site. ${nothingStored}. ` +
        'Free space or remove documents, then import it again',
    );
  }
  const message = messageOf(error);
  if (error instanceof RangeError || /Maximum call stack size exceeded/i.test(message)) {
    return new Error(
      `a record of the bundle is nested too deeply for the browser to store it. ${nothingStored}`,
    );
  }
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'DataCloneError' || name === 'DataError' || name === 'ConstraintError') {
    return new Error(
      `the browser could not store a record of the bundle (${String(name)}: ${message.slice(0, 160)}). ` +
        `${nothingStored}`,
    );
  }
  return error instanceof Error ? error : new Error(message);
}
