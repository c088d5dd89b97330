// Version 15's rows (the directory's `rowsCoding`, FORMAT.md "Version 15"): a chunk's concept ids as Rice codes of
// their gaps rather than varints. `open` holds every chunk's concept count m already, so a row stores no count and no
// parameter (version 16's rows start with their count instead, below): its Rice parameter is k = ⌊log2 ⌊concepts / (m + 1)⌋⌋ (0 when that quotient is 0), about the mean gap
// of m ids spread over the concepts (a concept id is its term's rank, so a row's ids are spread nearly evenly). The
// row is a bit stream, least significant bit of each byte first: for each id its gap (the first id itself, then each
// id less the one before less 1) as the quotient `gap >> k` in unary (ones ended by a zero) then the gap's low k
// bits; it ends in its last byte, whose bits left over are 0. A row of no concepts is no bytes.
// Why: a first page at 100 MiB reads the rows of ~4,700 chunks in 128-byte blocks of whole rows, each with a
// 48-byte path; a varint spends 8 bits a 7 of gap (ids of 591 K concepts: 2 to 3 bytes an id), the Rice code ~log2 of
// the mean gap + 2. test/bench/row-block-codings.ts measured the candidates (a code chosen per row and stored in 5
// bits, Rice or Exp-Golomb, made rows larger than the parameter computed from m: docs/results/question-bytes.md,
// round twenty-four).
// Hand-written: the format's own coding of its own rows, with the checks a stranger's bundle needs (no npm library
// codes a row in this shape); the bit code is postingsCoding.ts's Rice code.
import { ByteWriter } from './bytes.ts';
import { BitWriter } from './postingsCoding.ts';

/** Codes below this are Rice codes in postingsCoding.ts's BitWriter: every row parameter (≤ 32) is one. */
const ALWAYS_RICE = 64;

/** The Rice parameter of a row of m ids among `concepts` (both whole numbers ≥ 0): ⌊log2 ⌊concepts / (m + 1)⌋⌋. */
export function rowRiceParameter(m: number, concepts: number): number {
  const quotient = Math.floor(concepts / (m + 1));
  // Whole numbers (Math.clz32) where a log2 could differ between engines; a quotient ≥ 2^31 is exact as a power test.
  if (quotient < 1) return 0;
  if (quotient < 2 ** 31) return 31 - Math.clz32(quotient);
  let k = 31;
  while (2 ** (k + 1) <= quotient) k++;
  return k;
}

/**
 * Appends one row (ids ascending, each below `concepts`) as version 15 codes it. Throws on ids out of order or out of
 * range (the writers' own rows: a bug, not a stranger's bundle).
 */
export function encodeRow(out: ByteWriter, ids: ArrayLike<number>, concepts: number): void {
  const m = ids.length;
  if (m === 0) return;
  const bits = new BitWriter();
  writeRowCodes(bits, ids, concepts);
  out.bytes(bits.finish());
}

/** A row's m Rice codes (version 15's, and version 16's after the count), ids checked as encodeRow says. */
function writeRowCodes(bits: BitWriter, ids: ArrayLike<number>, concepts: number): void {
  const k = rowRiceParameter(ids.length, concepts);
  let previous = -1;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (!(id > previous && id < concepts))
      throw new Error(`pages: a row out of order or naming concept ${id}`);
    bits.code(id - previous - 1, k, ALWAYS_RICE);
    previous = id;
  }
}

/** One row as version 15 codes it (benches, tests). */
export function encodedRow(ids: ArrayLike<number>, concepts: number): Uint8Array {
  const out = new ByteWriter();
  encodeRow(out, ids, concepts);
  return out.take();
}

/**
 * Decodes m ids of one row from `bytes` at byte `at` into `into` from `into[from]`, each value checked before it
 * bounds a loop: m against the bits that could hold it (each code takes k + 1 bits at least), every unary run and low
 * bits within the row's bytes (`end`), every id below `concepts`; the row must end in its last byte with its bits
 * left over 0 when `end` is where it ends. Returns the byte after the row. Throws an Error saying why (the caller names
 * the chunk).
 */
export function decodeRow(
  bytes: Uint8Array,
  at: number,
  end: number,
  m: number,
  concepts: number,
  into: Uint32Array,
  from: number,
): number {
  if (m === 0) return at;
  return rowEnd(bytes, decodeCodes(bytes, at * 8, end * 8, m, concepts, into, from));
}

/** The byte after a row whose codes end at bit `pos`: the bits left in its last byte must be 0. */
function rowEnd(bytes: Uint8Array, pos: number): number {
  if (pos & 7 && bytes[pos >>> 3] >>> (pos & 7) !== 0) throw new Error('ends with bits that are not 0');
  return Math.ceil(pos / 8);
}

/** q ones then a zero from bit `pos`, read a byte at a time (the ones left in each byte counted at once). */
function readUnary(bytes: Uint8Array, pos: number, limit: number): [q: number, pos: number] {
  let q = 0;
  for (;;) {
    if (pos >= limit) throw new Error('runs past its bytes');
    const shift = pos & 7;
    const zeros = ~(bytes[pos >>> 3] >>> shift) & (0xff >>> shift);
    if (zeros === 0) {
      q += 8 - shift;
      pos += 8 - shift;
      continue;
    }
    const ones = 31 - Math.clz32(zeros & -zeros);
    return [q + ones, pos + ones + 1];
  }
}

/** The m Rice codes of a row from bit `pos` (bits below `limit`), checked as decodeRow says; the bit after them. */
function decodeCodes(
  bytes: Uint8Array,
  pos: number,
  limit: number,
  m: number,
  concepts: number,
  into: Uint32Array,
  from: number,
): number {
  const k = rowRiceParameter(m, concepts);
  if (m * (k + 1) > limit - pos)
    throw new Error(`holds ${m} concept ids in ${Math.ceil((limit - pos) / 8)} bytes`);
  let id = -1;
  const scale = 2 ** k;
  const mask = k <= 24 ? (1 << k) - 1 : 0;
  for (let i = 0; i < m; i++) {
    let q: number;
    [q, pos] = readUnary(bytes, pos, limit);
    if (pos + k > limit) throw new Error('runs past its bytes');
    let low = 0;
    if (k <= 24) {
      // The k low bits from a window of 4 bytes (k + the bit's place in its byte ≤ 31): bytes past the array read 0,
      // bits past the row are masked off (pos + k is within it). Taken a byte at a time they cost 6× the varints.
      const b = pos >>> 3;
      low =
        ((bytes[b] | (bytes[b + 1] << 8) | (bytes[b + 2] << 16) | (bytes[b + 3] << 24)) >>> (pos & 7)) & mask;
      pos += k;
    } else
      for (let got = 0; got < k;) {
        const shift = pos & 7;
        const take = Math.min(8 - shift, k - got);
        low += ((bytes[pos >>> 3] >>> shift) & ((1 << take) - 1)) * 2 ** got;
        got += take;
        pos += take;
      }
    id += q * scale + low + 1;
    if (id >= concepts) throw new Error(`names concept ${id} of ${concepts}`);
    into[from + i] = id;
  }
  return pos;
}

// Version 16's rows (the directory's `rowsDelimited`, FORMAT.md "Version 16"): each row starts with its concept count
// m as an Exp-Golomb code of order ROW_COUNT_ORDER (q ones and a zero, then the q + 5 low bits of m + 32), then version
// 15's Rice codes with the parameter computed from m, and ends in its last byte (its bits left over 0). A row of no
// concepts is its count alone (one byte). Why: a row that says how many ids it holds needs no count in `open`, and rows
// one after another are read from the start of their block, so `open` keeps per block of rows its first chunk and
// its bytes rather than every chunk's count and row size (conceptCounts and rowGroups: 117.6 KB gzip'd alone at 100
// MiB, read whole at every opening; docs/results/question-bytes.md, round twenty-five, candidate B, which measured
// order 5 the best over the 100 MiB rows).

/** Version 16: the order of the Exp-Golomb code of a row's concept count. */
export const ROW_COUNT_ORDER = 5;

/** Appends one row (ids ascending, each below `concepts`) as version 16 codes it: its count, then version 15's codes. */
export function encodeDelimitedRow(out: ByteWriter, ids: ArrayLike<number>, concepts: number): void {
  const m = ids.length;
  if (m > concepts) throw new Error(`pages: a row of ${m} concept ids among ${concepts}`);
  const bits = new BitWriter();
  bits.code(m, ALWAYS_RICE + ROW_COUNT_ORDER, ALWAYS_RICE);
  writeRowCodes(bits, ids, concepts);
  out.bytes(bits.finish());
}

/** One row as version 16 codes it (benches, tests). */
export function encodedDelimitedRow(ids: ArrayLike<number>, concepts: number): Uint8Array {
  const out = new ByteWriter();
  encodeDelimitedRow(out, ids, concepts);
  return out.take();
}

/**
 * Version 16: the rows of `rows` chunks one after another in `bytes` (a block of rows), decoded: their concept ids and
 * where each chunk's start among them. Each count is checked before it bounds a loop or an allocation: at most
 * `concepts`, and m codes of k + 1 bits at least within the bytes left; each row as decodeRow checks it; the rows must
 * end where the bytes do. Throws an Error naming the row's chunk and why.
 */
export function decodeDelimitedRows(
  bytes: Uint8Array,
  rows: number,
  concepts: number,
  /** The first row's chunk (named in what is thrown). */
  first = 0,
): { starts: Uint32Array; ids: Uint32Array } {
  // Each row is a byte at least: more rows than bytes cannot be (checked before `starts` is allocated).
  if (rows > bytes.length) throw new Error(`${bytes.length} bytes cannot hold ${rows} rows`);
  const starts = new Uint32Array(rows + 1);
  // Each code takes a bit at least (the counts are checked against the bits left before any is decoded).
  let ids = new Uint32Array(Math.min(bytes.length * 8, 64));
  const limit = bytes.length * 8;
  let pos = 0;
  for (let r = 0; r < rows; r++) {
    try {
      const [q, after] = readUnary(bytes, pos, limit);
      const width = q + ROW_COUNT_ORDER;
      if (width > 31 || after + width > limit) throw new Error('holds a count that runs past its bytes');
      let low = 0;
      for (let got = 0; got < width;) {
        const at = after + got;
        const shift = at & 7;
        const take = Math.min(8 - shift, width - got);
        low += ((bytes[at >>> 3] >>> shift) & ((1 << take) - 1)) * 2 ** got;
        got += take;
      }
      pos = after + width;
      const m = 2 ** width + low - 2 ** ROW_COUNT_ORDER;
      if (m > concepts) throw new Error(`gives ${m} concepts of ${concepts}`);
      const k = rowRiceParameter(m, concepts);
      if (m * (k + 1) > limit - pos)
        throw new Error(`holds ${m} concept ids in ${bytes.length - (pos >>> 3)} bytes`);
      const from = starts[r];
      if (from + m > ids.length) {
        const grown = new Uint32Array(Math.max(ids.length * 2, from + m));
        grown.set(ids.subarray(0, from));
        ids = grown;
      }
      pos = rowEnd(bytes, m > 0 ? decodeCodes(bytes, pos, limit, m, concepts, ids, from) : pos) * 8;
      starts[r + 1] = from + m;
    } catch (e) {
      throw new Error(`chunk ${first + r}'s row ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (pos !== limit) throw new Error(`${bytes.length - pos / 8} bytes past their ${rows} rows`);
  return { starts, ids: ids.slice(0, starts[rows]) };
}
