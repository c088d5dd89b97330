// Version 6's coding of the lists kept in the rows (listsInRows, format.ts): every concept's chunk list, concept
// after concept, as Rice-coded gaps whose parameter follows from the concept's df (which `open` holds), then one bit
// a link saying whether the chunk holds the concept more than once, then those counts less 2 as varints; the whole
// gzip'd as one group. A documentation-sized library reads this group whole on every question (the walk needs about
// a quarter to a half of the chunks' rows, scattered over all of them): coded by concept rather than by chunk, a
// rare concept's single chunk costs ~log2(chunks / df) bits instead of a varint gap between concept ids, and the
// group is 17–24 % smaller than version 4's (docs/results/question-bytes.md, round fifteen). The reader gets the
// lists straight from it and the rows (each chunk's concepts, ascending) by inverting them.
import { ByteReader } from './bytes.ts';
import { messageOf } from '../errors.ts';

/** Rice parameter of a list of `df` chunks among `n`: the largest k with df·2^k ≤ n, i.e. ⌊log2(n / df)⌋. */
function riceParameter(n: number, df: number): number {
  let k = 0;
  while (df * 2 ** (k + 1) <= n) k++;
  return k;
}

/** Bits written most significant first, into bytes (the last one padded with zeros). */
class BitWriter {
  private buf = new Uint8Array(1 << 12);
  private length = 0;
  private current = 0;
  private filled = 0;

  /** Bytes written so far (a partly filled byte counts). */
  get bytes(): number {
    return this.length + (this.filled > 0 ? 1 : 0);
  }

  bit(b: number): void {
    this.current = (this.current << 1) | b;
    if (++this.filled === 8) {
      if (this.length === this.buf.length) {
        const next = new Uint8Array(this.buf.length * 2);
        next.set(this.buf);
        this.buf = next;
      }
      this.buf[this.length++] = this.current;
      this.current = 0;
      this.filled = 0;
    }
  }

  /** The low `width` bits of v (width ≤ 31). */
  bits(v: number, width: number): void {
    for (let i = width - 1; i >= 0; i--) this.bit((v >>> i) & 1);
  }

  take(): Uint8Array {
    while (this.filled > 0) this.bit(0);
    return this.buf.slice(0, this.length);
  }
}

/**
 * The inflated group of version 6's lists kept in the rows: the lists (concept order; each chunk's gap from the one
 * before, the first from −1, less 1, Rice-coded with riceParameter(n, df)), then a bit a link (1: a count of more than
 * 1 follows), then each such count less 2 as a varint. Undefined as soon as it passes `most` bytes before gzip.
 */
export function encodeRiceLists(
  n: number,
  conceptChunkOffsets: ArrayLike<number>,
  conceptChunks: ArrayLike<number>,
  tf: ArrayLike<number>,
  most: number,
): Uint8Array | undefined {
  const nc = conceptChunkOffsets.length - 1;
  const lists = new BitWriter();
  for (let c = 0; c < nc; c++) {
    const a = conceptChunkOffsets[c];
    const b = conceptChunkOffsets[c + 1];
    if (a === b) continue;
    const k = riceParameter(n, b - a);
    let previous = -1;
    for (let i = a; i < b; i++) {
      const gap = conceptChunks[i] - previous - 1;
      for (let q = Math.floor(gap / 2 ** k); q > 0; q--) lists.bit(1);
      lists.bit(0);
      lists.bits(gap % 2 ** k, k);
      previous = conceptChunks[i];
    }
    if (lists.bytes > most) return undefined;
  }
  const links = conceptChunkOffsets[nc];
  const flags = new BitWriter();
  const more: number[] = [];
  for (let i = 0; i < links; i++) {
    flags.bit(tf[i] > 1 ? 1 : 0);
    if (tf[i] > 1) more.push(tf[i] - 2);
  }
  const listBytes = lists.take();
  const flagBytes = flags.take();
  let moreBytes = 0;
  for (const m of more) moreBytes += varintLength(m);
  if (listBytes.length + flagBytes.length + moreBytes > most) return undefined;
  const out = new Uint8Array(listBytes.length + flagBytes.length + moreBytes);
  out.set(listBytes, 0);
  out.set(flagBytes, listBytes.length);
  let at = listBytes.length + flagBytes.length;
  for (let m of more) {
    while (m >= 0x80) {
      out[at++] = (m % 0x80) | 0x80;
      m = Math.floor(m / 0x80);
    }
    out[at++] = m;
  }
  return out;
}

function varintLength(v: number): number {
  let bytes = 1;
  for (; v >= 0x80; v = Math.floor(v / 0x80)) bytes++;
  return bytes;
}

/** What the group decodes to: the rows (chunk k's concepts ids[starts[k]..starts[k + 1]), with counts) and the lists. */
export interface RiceDecoded {
  starts: Uint32Array;
  ids: Uint32Array;
  counts: Uint32Array;
  lists: { offsets: Uint32Array; chunks: Uint32Array; counts: Uint32Array };
}

/**
 * The inflated group back into lists and rows. The concepts' df (from `open`) must sum to the chunks' concept counts
 * (also `open`'s), and each link takes at least two bits (a Rice code's end and its flag), so the links are checked
 * against the bytes before anything is allocated; every chunk is below `n`, every chunk is in exactly as many lists
 * as its count says, padding bits are 0, counts fit 32 bits and the bytes hold exactly the group. `fail` throws,
 * naming the rows.
 */
export function decodeRiceLists(
  raw: Uint8Array,
  n: number,
  df: ArrayLike<number>,
  conceptCounts: ArrayLike<number>,
  fail: (why: string) => never,
): RiceDecoded {
  const nc = df.length;
  const offsets = new Uint32Array(nc + 1);
  for (let c = 0; c < nc; c++) offsets[c + 1] = offsets[c] + df[c];
  const links = offsets[nc];
  const starts = new Uint32Array(n + 1);
  for (let k = 0; k < n; k++) starts[k + 1] = starts[k] + conceptCounts[k];
  if (starts[n] !== links)
    fail(
      `hold the lists of concepts whose df sum to ${links}, but the chunks' concept counts sum to ${starts[n]}`,
    );
  if (links > raw.length * 4) fail(`hold ${raw.length} bytes, too few for ${links} links of at least 2 bits`);
  const chunks = new Uint32Array(links);
  const totalBits = raw.length * 8;
  let bit = 0;
  const next = (): number => {
    if (bit >= totalBits) fail('end inside the lists');
    const b = (raw[bit >>> 3] >>> (7 - (bit & 7))) & 1;
    bit++;
    return b;
  };
  for (let c = 0; c < nc; c++) {
    if (df[c] === 0) continue;
    const k = riceParameter(n, df[c]);
    let previous = -1;
    for (let i = offsets[c]; i < offsets[c + 1]; i++) {
      let q = 0;
      while (next() === 1) if (++q >= n) fail(`give concept ${c} a chunk past ${n}`);
      let r = 0;
      for (let j = 0; j < k; j++) r = r * 2 + next();
      const chunk = previous + 1 + q * 2 ** k + r;
      if (chunk >= n) fail(`give concept ${c} chunk ${chunk} of ${n}`);
      chunks[i] = previous = chunk;
    }
  }
  const padded = (): number => {
    while (bit & 7) if (next() !== 0) fail('have padding bits that are not 0');
    return bit >>> 3;
  };
  const flagsAt = padded();
  if (flagsAt + Math.ceil(links / 8) > raw.length) fail('end inside the count flags');
  const counts = new Uint32Array(links);
  let flagged = 0;
  for (let i = 0; i < links; i++) {
    counts[i] = next() === 1 ? 0 : 1;
    if (counts[i] === 0) flagged++;
  }
  const rest = raw.subarray(padded());
  if (flagged > rest.length)
    fail(`flag ${flagged} counts, more than the ${rest.length} bytes after the flags`);
  const r = new ByteReader(rest);
  const varint = (): number => {
    try {
      return r.varint();
    } catch (e) {
      return fail(`do not decode (${messageOf(e)})`);
    }
  };
  for (let i = 0; i < links; i++) {
    if (counts[i] !== 0) continue;
    const more = varint();
    if (more >= 2 ** 32 - 2) fail('give a count past 32 bits');
    counts[i] = more + 2;
  }
  if (r.at !== rest.length) fail(`hold ${rest.length - r.at} bytes past their ${links} links`);
  // The rows: concepts come in ascending order, so each chunk's ids ascend.
  const ids = new Uint32Array(links);
  const rowCounts = new Uint32Array(links);
  const fill = starts.slice(0, n);
  for (let c = 0; c < nc; c++) {
    for (let i = offsets[c]; i < offsets[c + 1]; i++) {
      const k = chunks[i];
      if (fill[k] >= starts[k + 1])
        fail(`put chunk ${k} in more lists than its ${conceptCounts[k]} concepts (concept ${c})`);
      ids[fill[k]] = c;
      rowCounts[fill[k]++] = counts[i];
    }
  }
  return { starts, ids, counts: rowCounts, lists: { offsets, chunks, counts } };
}

/**
 * Version 4's and 5's group of rows that keep the lists, inflated: as many ids as `open`'s counts say, each at least
 * a byte, so their sum is checked against the bytes first, which must hold exactly them. Ids ascend per chunk and
 * name concepts the pages have; a count is at least 2 where the flag says so, and fits 32 bits.
 */
export function decodeCountedRows(
  bytes: Uint8Array,
  n: number,
  nc: number,
  perChunk: ArrayLike<number>,
  fail: (why: string) => never,
): { starts: Uint32Array; ids: Uint32Array; counts: Uint32Array } {
  const starts = new Uint32Array(n + 1);
  for (let k = 0; k < n; k++) starts[k + 1] = starts[k] + perChunk[k];
  const total = starts[n];
  if (total > bytes.length)
    fail(`hold ${bytes.length} bytes, fewer than the ${total} concept ids of their chunks' counts`);
  const ids = new Uint32Array(total);
  const counts = new Uint32Array(total);
  const r = new ByteReader(bytes);
  const varint = (): number => {
    try {
      return r.varint();
    } catch (e) {
      return fail(`do not decode (${messageOf(e)})`);
    }
  };
  for (let k = 0; k < n; k++) {
    let c = 0;
    for (let j = starts[k]; j < starts[k + 1]; j++) {
      const coded = varint();
      const gap = Math.floor(coded / 2);
      if (j > starts[k] && gap === 0) fail(`name a concept twice in chunk ${k}`);
      c += gap;
      if (c >= nc) fail(`name concept ${c} of ${nc} in chunk ${k}`);
      ids[j] = c;
      const more = coded % 2 === 1 ? varint() : -1;
      if (more >= 2 ** 32 - 2) fail(`give chunk ${k} a count of concept ${c} past 32 bits`);
      counts[j] = more + 2;
    }
  }
  if (r.at !== bytes.length) fail(`hold ${bytes.length - r.at} bytes past their ${total} concept ids`);
  return { starts, ids, counts };
}
