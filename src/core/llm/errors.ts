// Errors of the LLM client, split by what the user can do about them. Messages never contain the API key.

export type LlmErrorKind =
  | 'aborted'
  | 'network'
  | 'timeout'
  | 'stall'
  | 'auth'
  | 'not-found'
  | 'rate-limit'
  | 'server'
  | 'bad-request'
  | 'malformed';

export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  /** HTTP status when the server answered. */
  readonly status?: number;
  /** Whether another attempt may succeed (429, 5xx, network, timeouts). */
  readonly retryable: boolean;
  /** Seconds the server asked us to wait (Retry-After). */
  readonly retryAfterS?: number;

  constructor(
    kind: LlmErrorKind,
    message: string,
    opts: { status?: number; retryable?: boolean; retryAfterS?: number } = {},
  ) {
    super(message);
    this.name = 'LlmError';
    this.kind = kind;
    this.status = opts.status;
    this.retryable = opts.retryable ?? false;
    this.retryAfterS = opts.retryAfterS;
  }
}

/** Replaces every occurrence of the key (and of a long enough tail of it) with "***". */
export function redact(text: string, apiKey: string): string {
  if (!apiKey) return text;
  let out = text.split(apiKey).join('***');
  // Some servers echo only part of a wrong key ("Incorrect API key provided: sk-ab***xyz").
  if (apiKey.length >= 12) {
    const tail = apiKey.slice(-6);
    const head = apiKey.slice(0, 8);
    out = out.split(head).join('***').split(tail).join('***');
  }
  return out;
}

export function isAbortError(err: unknown): boolean {
  return (
    (err instanceof LlmError && err.kind === 'aborted') ||
    (typeof err === 'object' && err !== null && (err as { name?: string }).name === 'AbortError')
  );
}
