// Where a library read by ranges gets its bytes: a file on disk (the CLI), a dropped File (File.slice), a URL (HTTP
// Range requests), or bytes in memory (tests, a host without Range support whose whole file was downloaded).
// The platform code implements this; src/core only reads through it.

/**
 * The gap a source pays a request for (RangeSource.gapBytes) when it says nothing: wanted ranges at most this many
 * bytes apart are read as one, with the bytes between. 32 KiB costs less than a request's round trip on any link
 * (about 5 ms at 50 Mbit/s; a round trip is 20–100 ms), and a browser sends at most 6 requests to a host at once over
 * HTTP/1.1: on the 1 GiB bundle the first four questions sent 4,274 requests instead of 15,083 for 116 MB instead of
 * 109 MB (docs/results/ranges.md).
 */
export const ROUND_TRIP_GAP = 32 * 1024;

/** Requests a source keeps out at once when it says nothing (RangeSource.inFlight): HTTP/1.1's 6 a host in browsers. */
export const DEFAULT_IN_FLIGHT = 6;
/**
 * The most requests a source may ask to keep out at once (RangeSource.inFlight): more is taken as this many, so a
 * source's bug cannot start thousands of reads at once.
 */
export const MAX_IN_FLIGHT = 128;

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
  /**
   * Bytes between two wanted ranges that cost less to read than a range of their own (the block store then reads
   * both, and what lies between, as one range). A source that pays a round trip a range says what a round trip
   * carries (ROUND_TRIP_GAP, also what an undefined gap means); one that sends many ranges in one request, or reads
   * memory, says 0: every byte of a gap is then a byte read for nothing (docs/results/question-bytes.md, round
   * twelve). Asked before every read, so a source may change its mind (a host found not to answer multi-range
   * requests).
   */
  readonly gapBytes?: number;
  /**
   * What a range costs on the wire beyond its bytes in a request of several (a multipart part's delimiter and headers:
   * ~90 bytes from nginx, ~120 from the e2e's server), for a source that sends many ranges a request (gapBytes 0): a
   * gap between two wanted ranges shorter than this costs fewer bytes read than as a part of its own, so the block
   * store reads it with them. Undefined or 0: every gap is another range (memory, a file).
   */
  readonly partBytes?: number;
  /**
   * Requests the block store keeps out at once (DEFAULT_IN_FLIGHT when undefined, at most MAX_IN_FLIGHT): a host over
   * HTTP/1.1 answers 6 at a time in a browser; one over HTTP/2 or HTTP/3 many on one connection, where a request costs
   * its headers rather than a round trip of its own. Asked before every read, as gapBytes.
   */
  readonly inFlight?: number;
  /**
   * Ranges the block store puts in one readRanges call at most (100 when undefined: a multi-range request's header
   * stays near 2 KB, Apache answers more than 200 whole). 1 for a source that answers one range a request and keeps
   * many in flight: each range is then a read of its own, taken from one queue by the requests in flight, instead of
   * batches a request reads one range after another.
   */
  readonly rangesARequest?: number;
}

export class MemoryRangeSource implements RangeSource {
  bytesRead = 0;
  /** Reading memory costs nothing a range: no gap is worth reading. */
  readonly gapBytes = 0;
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
