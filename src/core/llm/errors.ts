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

/** Shortest run of a key's characters that counts as an echo of it (a key is 20–200 characters). */
const ECHO_RUN = 6;

/** The forms a server may echo a key in: as is, URL-encoded, JSON-escaped, base64 (a Basic header). */
function keyForms(apiKey: string): string[] {
  const forms = new Set([apiKey, encodeURIComponent(apiKey), JSON.stringify(apiKey).slice(1, -1)]);
  try {
    const b64 = btoa(apiKey);
    forms.add(b64);
    forms.add(b64.replace(/=+$/, ''));
  } catch {
    // A key outside Latin-1 has no btoa form (it would not fit a header either).
  }
  return [...forms].filter((f) => f.length > 0);
}

/**
 * Replaces every occurrence of the key with "***", in any of the forms a server echoes it in (as is, URL-encoded,
 * JSON-escaped, base64), and, for a key of 12 characters or more, every run of at least ECHO_RUN consecutive
 * characters of one of those forms that is not a plain lowercase word: servers echo part of a wrong key ("Incorrect API key provided: sk-ab***xyz", or
 * its middle), and what is left around each *** is at most a few characters.
 */
export function redact(text: string, apiKey: string): string {
  if (!apiKey) return text;
  const forms = keyForms(apiKey);
  let out = text;
  for (const form of forms) out = out.split(form).join('***');
  if (apiKey.length < 12) return out;
  const runs = new Set<string>();
  for (const form of forms)
    for (let i = 0; i + ECHO_RUN <= form.length; i++) runs.add(form.slice(i, i + ECHO_RUN));
  let result = '';
  for (let i = 0; i < out.length;) {
    if (!runs.has(out.slice(i, i + ECHO_RUN))) {
      result += out[i++];
      continue;
    }
    // The longest run from here that is still inside one of the forms.
    let end = i + ECHO_RUN;
    while (end < out.length && forms.some((f) => f.includes(out.slice(i, end + 1)))) end++;
    // A run of lowercase letters alone is a word of the message more likely than an echo (a key that holds
    // "redirect" must not blank out "answered with a redirect"); a random key's echo has a digit, capital or sign.
    if (/^[a-z]+$/.test(out.slice(i, end))) {
      result += out.slice(i, end);
      i = end;
      continue;
    }
    result += '***';
    i = end;
  }
  return result;
}

export function isAbortError(err: unknown): boolean {
  return (
    (err instanceof LlmError && err.kind === 'aborted') ||
    (typeof err === 'object' && err !== null && (err as { name?: string }).name === 'AbortError')
  );
}
