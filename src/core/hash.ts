// SHA-256 hex digests via Web Crypto, available in browsers, workers and Node ≥ 20 alike (globalThis.crypto).

const encoder = new TextEncoder();

/** Lowercase hex SHA-256 of a string (as UTF-8) or of bytes. */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  if (!globalThis.crypto?.subtle) throw new Error('hash: crypto.subtle is not available in this environment');
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  const digest = new Uint8Array(
    await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
