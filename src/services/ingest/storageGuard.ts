// Every IndexedDB write the ingest pipeline makes goes through guardWrite: a write the browser refuses for lack of
// space (QuotaExceededError, which Dexie keeps as the error's name or wraps as `inner`) or one that does not settle
// within a time limit stops indexing with a StorageStopError that names the file, instead of failing the file (it
// is not at fault) or freezing the queue. Transactions are all-or-nothing, so what was stored before stays complete.

/** A write that has not settled after this long is treated as refused (the browser is stuck, not slow). */
export const STORE_TIMEOUT_MS = 30_000;

export type StorageStopCause = 'storage-full' | 'storage-timeout';

function seconds(ms: number): string {
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
  ) {
    super(
      kind === 'storage-full'
        ? `the browser refused to store more: storage is full for this site (while storing ${subject}). ` +
            'Documents stored so far are complete and the rest of the queue is kept: free space or remove ' +
            'documents, then reload the page to resume'
        : `the browser did not finish storing ${subject} within ${seconds(timeoutMs)}, so indexing ` +
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

/**
 * Runs one write; turns a quota error or a write that hangs past `timeoutMs` into a StorageStopError. An infinite
 * limit guards only against the quota (for work that computes before it writes, like a graph rebuild).
 */
export async function guardWrite<T>(
  write: () => Promise<T>,
  what: { subject: string; file?: string },
  timeoutMs: number = STORE_TIMEOUT_MS,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    if (!Number.isFinite(timeoutMs)) return;
    timer = setTimeout(
      () => reject(new StorageStopError('storage-timeout', what.subject, what.file, timeoutMs)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([write(), hung]);
  } catch (error) {
    if (error instanceof StorageStopError) throw error;
    if (isQuotaError(error)) throw new StorageStopError('storage-full', what.subject, what.file, timeoutMs);
    throw error;
  } finally {
    clearTimeout(timer);
  }
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
  const message = error instanceof Error ? error.message : String(error);
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
