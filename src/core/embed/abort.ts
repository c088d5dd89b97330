// Cancellation helpers shared by the embedders and the pipeline. Errors are named 'AbortError' (like
// fetch's), so callers can tell a cancelled run from a failure with one check: isAbortError(e).

/** Error thrown when an AbortSignal fires; name 'AbortError' like a DOMException from fetch. */
export class EmbedAbortError extends Error {
  constructor(where: string) {
    super(`${where}: cancelled`);
    this.name = 'AbortError';
  }
}

/** Throws an AbortError naming `where` if `signal` has fired. */
export function throwIfAborted(signal: AbortSignal | undefined, where: string): void {
  if (signal?.aborted) throw new EmbedAbortError(where);
}
