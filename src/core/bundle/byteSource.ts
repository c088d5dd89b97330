// Exact-length reads over a stream of byte chunks of arbitrary sizes (a fetch body, a File stream, a Node
// file stream). The bundle reader asks for "the next N bytes" and must learn precisely how many arrived when the
// stream ends early, to report a truncation with numbers.

export type ByteInput = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array;

/** The pieces as one buffer (the one piece as it is). */
export function concatBytes(pieces: readonly Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function iterate(input: ByteInput): AsyncIterator<Uint8Array> {
  if (input instanceof Uint8Array) {
    let given = false;
    return {
      async next() {
        if (given) return { done: true, value: undefined };
        given = true;
        return { done: false, value: input };
      },
    };
  }
  if (typeof (input as ReadableStream<Uint8Array>).getReader === 'function') {
    const reader = (input as ReadableStream<Uint8Array>).getReader();
    return {
      async next() {
        const r = await reader.read();
        return r.done ? { done: true, value: undefined } : { done: false, value: r.value };
      },
      async return() {
        await reader.cancel();
        return { done: true, value: undefined };
      },
    };
  }
  return (input as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
}

export class ByteSource {
  private readonly iterator: AsyncIterator<Uint8Array>;
  private current: Uint8Array = new Uint8Array(0);
  private position = 0;
  private ended = false;
  /** Bytes consumed so far, for error messages. */
  offset = 0;
  /** Bytes received from the stream so far (reported as they arrive, for progress bars). */
  private received = 0;

  constructor(
    input: ByteInput,
    private readonly onReceived?: (bytes: number) => void,
  ) {
    this.iterator = iterate(input);
  }

  private async fill(): Promise<boolean> {
    while (this.position >= this.current.length) {
      if (this.ended) return false;
      const r = await this.iterator.next();
      if (r.done) {
        this.ended = true;
        return false;
      }
      // Copy only when the chunk is a view we could be handed again; plain chunks are used in place.
      this.current = r.value;
      this.position = 0;
      this.received += r.value.length;
      this.onReceived?.(this.received);
    }
    return true;
  }

  /**
   * Fills `target` from the stream, feeding every byte to `onBytes` as well (for hashing).
   * Returns how many bytes were written: less than target.length only when the stream ended.
   */
  async readInto(target: Uint8Array, onBytes?: (bytes: Uint8Array) => void): Promise<number> {
    let written = 0;
    while (written < target.length) {
      if (!(await this.fill())) break;
      const take = Math.min(target.length - written, this.current.length - this.position);
      const slice = this.current.subarray(this.position, this.position + take);
      target.set(slice, written);
      onBytes?.(slice);
      written += take;
      this.position += take;
      this.offset += take;
    }
    return written;
  }

  /** Reads up to n bytes; a shorter result means the stream ended. */
  async read(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    const got = await this.readInto(out);
    return got === n ? out : out.subarray(0, got);
  }

  /** True when no byte is left. */
  async atEnd(): Promise<boolean> {
    return !(await this.fill());
  }

  async close(): Promise<void> {
    if (!this.ended) {
      this.ended = true;
      await this.iterator.return?.();
    }
  }
}
