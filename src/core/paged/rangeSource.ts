// Where a library read by ranges gets its bytes: a file on disk (the CLI), a dropped File (File.slice), a URL (HTTP
// Range requests), or bytes in memory (tests, a host without Range support whose whole file was downloaded).
// The platform code implements this; src/core only reads through it.

export interface RangeSource {
  /** What the source is, for messages ("library.bundle", a URL). */
  readonly name: string;
  /** Its size in bytes. */
  readonly size: number;
  /** Exactly `length` bytes from `offset` (throws when the source has fewer). */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** Bytes read so far (what a question cost). */
  readonly bytesRead: number;
  /**
   * Several [offset, length] ranges at once, each exactly as read() gives it. A URL reads them in one request
   * (`Range: bytes=a-b, c-d, …`) where the host answers that; a source without it is read() range by range.
   */
  readRanges?(ranges: ReadonlyArray<readonly [number, number]>): Promise<Uint8Array[]>;
}

export class MemoryRangeSource implements RangeSource {
  bytesRead = 0;
  constructor(
    private readonly data: Uint8Array,
    readonly name = 'memory',
  ) {}

  get size(): number {
    return this.data.length;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (offset < 0 || length < 0 || offset + length > this.data.length) {
      throw new Error(
        `${this.name}: ${length} bytes at ${offset} are past its end (${this.data.length} bytes)`,
      );
    }
    this.bytesRead += length;
    return this.data.subarray(offset, offset + length);
  }
}
