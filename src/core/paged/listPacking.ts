// Version 12's concept lists (the directory's `listCoding`, FORMAT.md "Version 12"): the lists packed into blocks so
// that `open` needs, in place of a size a concept (`listSizes`, 160 KB gzip'd of `open` at 100 MiB of text), only how
// many lists start in each block (`listStarts`). A list holds its chunk ids as varint gaps, then its counts as 4-bit
// codes, two a byte (count i in byte ⌊i / 2⌋, the low half first, the high half of an odd list's last byte 0), a code
// 0 standing for a count of 16 or more, whose count less 16 follows the codes as a varint (99.6 % of the counts at
// 100 MiB are below 16: the section is smaller than version 11's varint counts by more than the packing's gaps). A
// list that does not fit in what is left of its block starts the next block, and the list after one longer than a
// block starts the block after its end: a block's first byte begins a list (or continues one that began a block),
// so a reader parses a block's lists from its first byte, each ending where its df says. The bytes left over are 0.
// Hand-written: the format's own coding of its own lists (no library codes these).
import { ByteReader, ByteWriter } from './bytes.ts';

/** The blocks the lists are packed into (the lists section's block size, write.ts sectionBlocksFor). */
export const LIST_BLOCK_BYTES = 128;
/** Counts from this one up are written as a code 0 and a varint of the count less it. */
const ESCAPE = 16;

/** The fewest bytes a list of df chunks takes: a byte a gap, half a byte a count. */
export function leastListBytes(df: number): number {
  return df + Math.ceil(df / 2);
}

/** Writes the lists in concept order, packed into blocks, and keeps where each starts. */
export class ListPacker {
  private readonly out = new ByteWriter();
  private readonly list = new ByteWriter();
  private flushed = 0;
  private count = 0;
  private breakNext = false;
  /** Where each concept's list starts in the section, and at [concepts] where the last one ends. */
  readonly starts: Float64Array;

  constructor(
    concepts: number,
    private readonly blockBytes = LIST_BLOCK_BYTES,
  ) {
    this.starts = new Float64Array(concepts + 1);
  }

  /** The section's bytes written so far. */
  get length(): number {
    return this.flushed + this.out.length;
  }

  /** The next concept's list: chunks[from..to) ascending, each with its count (≥ 1) in counts[from..to). */
  add(chunks: ArrayLike<number>, counts: ArrayLike<number>, from: number, to: number): void {
    const list = this.list;
    let previous = 0;
    for (let i = from; i < to; i++) {
      list.varint(chunks[i] - previous);
      previous = chunks[i];
    }
    const codes = new Uint8Array(Math.ceil((to - from) / 2));
    for (let i = from; i < to; i++) {
      const count = counts[i];
      if (!(count >= 1)) throw new Error(`pages: a list count of ${count}`);
      if (count < ESCAPE) codes[(i - from) >> 1] |= count << (4 * ((i - from) & 1));
    }
    list.bytes(codes);
    for (let i = from; i < to; i++) if (counts[i] >= ESCAPE) list.varint(counts[i] - ESCAPE);
    const bytes = list.take();
    const used = this.length % this.blockBytes;
    if (used > 0 && (this.breakNext || used + bytes.length > this.blockBytes))
      this.out.bytes(new Uint8Array(this.blockBytes - used));
    this.starts[this.count++] = this.length;
    this.out.bytes(bytes);
    this.breakNext = bytes.length > this.blockBytes;
    this.starts[this.count] = this.length;
  }

  /** The bytes written since the last take (a writer streams the section in pieces). */
  take(): Uint8Array {
    this.flushed += this.out.length;
    return this.out.take();
  }

  /** Bytes waiting to be taken. */
  get pending(): number {
    return this.out.length;
  }
}

/** `open.listStarts`' values: for every block of the section (lists starts, its end at [concepts]), its lists. */
export function listStartsOf(starts: ArrayLike<number>, blockBytes: number): Float64Array {
  const concepts = starts.length - 1;
  const counts = new Float64Array(Math.ceil(starts[concepts] / blockBytes));
  for (let c = 0; c < concepts; c++) counts[Math.floor(starts[c] / blockBytes)]++;
  return counts;
}

/**
 * Every block's first concept (the first whose list starts in it or after it), and at [blocks] the concept count,
 * from `open.listStarts`' counts, checked before a list is read by them: they sum to the concepts, and in every block
 * the lists before its last fit in it (each at least leastListBytes), so a read parses at most a block's bytes
 * before its list. Throws naming `listStarts`.
 */
export function listFirstsOf(
  counts: ArrayLike<number>,
  df: ArrayLike<number>,
  blockBytes: number,
  fail: (why: string) => never,
): Uint32Array {
  const firsts = new Uint32Array(counts.length + 1);
  let c = 0;
  for (let b = 0; b < counts.length; b++) {
    firsts[b] = c;
    const count = counts[b];
    if (count > df.length - c) fail(`start more lists than the ${df.length} concepts (listStarts)`);
    let least = 0;
    for (let i = 0; i + 1 < count; i++) least += leastListBytes(df[c + i]);
    if (least > blockBytes)
      fail(`start ${count} lists in block ${b}, more than its ${blockBytes} bytes hold (listStarts)`);
    c += count;
  }
  if (c !== df.length) fail(`start ${c} lists, expected ${df.length} (listStarts)`);
  firsts[counts.length] = c;
  return firsts;
}

/** The block concept c's list starts in: the last block whose first concept is c or before. */
export function listBlockOf(firsts: Uint32Array, c: number): number {
  let lo = 0;
  let hi = firsts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (firsts[mid] <= c) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The section's bytes a read of concept c's list takes: from its block's start to the end of the block before the
 * next list's (its own block at least), within the section of `sectionBytes`.
 */
export function listSpanOf(
  firsts: Uint32Array,
  c: number,
  blockBytes: number,
  sectionBytes: number,
): [number, number] {
  const concepts = firsts[firsts.length - 1];
  const b = listBlockOf(firsts, c);
  const next = c + 1 < concepts ? listBlockOf(firsts, c + 1) : firsts.length - 1;
  return [b * blockBytes, Math.min(sectionBytes, Math.max(b + 1, next) * blockBytes)];
}

/** Skips a list of df chunks (its gaps, codes and escaped counts); throws past the reader's bytes. */
export function skipList(r: ByteReader, df: number): void {
  for (let i = 0; i < df; i++) r.varint();
  let escapes = 0;
  for (let i = 0; i < df; i++) if (((r.byteAt(r.at + (i >> 1)) >> (4 * (i & 1))) & 15) === 0) escapes++;
  r.at += Math.ceil(df / 2);
  for (let i = 0; i < escapes; i++) r.varint();
}

/**
 * Reads a list's counts after its gaps (the reader at its codes) into counts[0..df): a code, or 16 and more from an
 * escape's varint. Throws past the reader's bytes, or on an odd list's last half byte that is not 0.
 */
export function readListCounts(r: ByteReader, df: number, counts: Uint32Array): void {
  const codes = Math.ceil(df / 2);
  for (let i = 0; i < df; i++) counts[i] = (r.byteAt(r.at + (i >> 1)) >> (4 * (i & 1))) & 15;
  if (df & 1 && r.byteAt(r.at + codes - 1) >> 4 !== 0)
    throw new Error('paged library: a list ends in a code');
  r.at += codes;
  for (let i = 0; i < df; i++)
    if (counts[i] === 0) {
      const more = r.varint();
      if (more > 0xffffffff - ESCAPE) throw new Error('paged library: a list count does not fit 32 bits');
      counts[i] = ESCAPE + more;
    }
}
