// A RangeSource that tags every byte it reads with the part of the bundle it falls in (issue 47, "where a question's
// bytes go"): the bundle's head (preamble, manifest, locator), the pages' block hashes, each section of pages.bin
// (format.ts SECTIONS), or "other" (any other part). A read that spans two sections is split at their boundary, so
// the split adds up to the bytes read.
import type { RangeSource } from '../../../src/core/paged/rangeSource.ts';

/** A named byte range [start, end) of the bundle file. */
export interface Region {
  name: string;
  start: number;
  end: number;
}

/** Bytes by region name, plus the total. */
export type Split = Map<string, number>;

/** Adds [start, end)'s overlap with every region to `into` (what lies in no region goes to "other"). */
export function addSplit(into: Split, regions: readonly Region[], start: number, end: number): void {
  let covered = 0;
  for (const r of regions) {
    const n = Math.min(end, r.end) - Math.max(start, r.start);
    if (n <= 0) continue;
    into.set(r.name, (into.get(r.name) ?? 0) + n);
    covered += n;
  }
  if (end - start > covered) into.set('other', (into.get('other') ?? 0) + end - start - covered);
}

export class TaggedSource implements RangeSource {
  bytesRead = 0;
  /** Requests: each read(), and each readRanges() call once (one multi-range request, as a host answering them). */
  requests = 0;
  /** Ranges read: the requests a host answering one range a request would take. */
  ranges = 0;
  /** The gap the block store reads between wanted ranges (RangeSource.gapBytes; undefined: the default). */
  gapBytes: number | undefined;
  /** What it says a range of its own costs in a request of several (RangeSource.partBytes; undefined: nothing). */
  partBytes: number | undefined;
  /** Requests it says the block store keeps out at once (RangeSource.inFlight; undefined: the default 6). */
  inFlight: number | undefined;
  /** Ranges it says a readRanges call carries at most (RangeSource.rangesARequest; undefined: 100). */
  rangesARequest: number | undefined;
  /** Bytes read by region since the last reset() (re-reads counted again: they are bytes on the wire). */
  split: Split = new Map();
  /** Every read as [offset, length], since the last reset(). */
  reads: Array<[number, number]> = [];
  /** Set once the manifest is known (reads before that are the head's). */
  regions: Region[] = [];

  constructor(private readonly inner: RangeSource) {}

  get name(): string {
    return this.inner.name;
  }
  get size(): number {
    return this.inner.size;
  }

  /** Several ranges as one request (read from the inner source range by range, each counted as read()). */
  async readRanges(ranges: ReadonlyArray<readonly [number, number]>): Promise<Uint8Array[]> {
    const out: Uint8Array[] = [];
    for (const [offset, length] of ranges) out.push(await this.read(offset, length));
    this.requests -= ranges.length - 1;
    return out;
  }

  reset(): void {
    this.split = new Map();
    this.reads = [];
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    const bytes = await this.inner.read(offset, length);
    this.bytesRead += length;
    this.requests++;
    this.ranges++;
    this.reads.push([offset, length]);
    if (this.regions.length === 0) this.split.set('head', (this.split.get('head') ?? 0) + length);
    else addSplit(this.split, this.regions, offset, offset + length);
    return bytes;
  }
}

/** The [start, end) intervals merged (sorted, disjoint). */
export function mergeIntervals(intervals: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const sorted = [...intervals].filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}
