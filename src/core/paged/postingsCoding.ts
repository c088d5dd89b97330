// Version 14's postings (the directory's `postingsCoding`, FORMAT.md "Version 14"): a word's postings as codes of a
// parameter each rather than varint pairs. A list is one varint of its count (df) and its codes, (df − 1) × 256 + the
// gaps' code + 32 × the counts' code (a list of one chunk spends a byte on both where they are small), then a bit
// stream, least significant bit of each byte first: for
// each posting its chunk's gap (the first chunk itself, then each chunk less the one before less 1), then its count
// less 1. A code c names how a field's values are written: for the gaps c < 24 is a Rice code of parameter c (the
// quotient in unary, ones ended by a zero, then the parameter's low bits) and c ≥ 24 an Exp-Golomb code of parameter
// c − 24 (the number of bits past the parameter in unary, then those bits less the leading 1); for the counts c < 4
// is a Rice code of parameter c and c ≥ 4 an Exp-Golomb code of parameter c − 4. The stream ends in the list's last
// byte, whose bits left over are 0. The writer picks each field's code as the one that makes it shortest (every code
// tried). A varint pair spends at least 16 bits a posting; a frequent word's gaps are small and its counts mostly 1,
// which a Rice code takes in a few bits, and Exp-Golomb bounds what an outlier costs (a count of 300 among ones, a
// jump across a library between clustered chunks) where a Rice code's unary part would grow with it
// (test/bench/postings-codings.ts measured the candidates: docs/results/question-bytes.md, round twenty-three).
// Hand-written: the format's own coding of its own lists (no npm library codes lists in this shape with the checks a
// stranger's bundle needs).
import { ByteReader, ByteWriter } from './bytes.ts';
import { messageOf } from '../errors.ts';

/** The largest count a posting holds (the word indexes keep counts as Uint16). */
const MAX_FREQ = 0xffff;
/** The gaps' codes below this one are Rice codes (of parameter c), from it Exp-Golomb (of c − GAP_RICE). */
const GAP_RICE = 24;
const GAP_CODES = 32;
/** The counts' codes below this one are Rice codes, from it Exp-Golomb. */
const FREQ_RICE = 4;
const FREQ_CODES = 8;

/** A list's decoded postings: ascending chunk numbers and the word's count in each. */
export interface DecodedPostings {
  chunks: Uint32Array;
  freqs: Uint16Array;
}

/** ⌊log2 v⌋ for a whole v ≥ 1 (up to 2^53). */
function log2floor(v: number): number {
  return v < 2 ** 31 ? 31 - Math.clz32(v) : Math.floor(Math.log2(v));
}

/** The bits `value` takes in code c of a field whose codes below `rice` are Rice codes. */
function bitsOf(value: number, c: number, rice: number): number {
  if (c < rice) return Math.floor(value / 2 ** c) + 1 + c;
  const k = c - rice;
  const q = log2floor(value + 2 ** k) - k;
  return 2 * q + k + 1;
}

/** The code in [0, codes) that writes values[0..count) in the fewest bits (ties: the smaller). */
function bestCode(values: Float64Array, codes: number, rice: number): number {
  let best = 0;
  let bestBits = Infinity;
  for (let c = 0; c < codes; c++) {
    let bits = 0;
    for (let i = 0; i < values.length && bits < bestBits; i++) bits += bitsOf(values[i], c, rice);
    if (bits < bestBits) {
      bestBits = bits;
      best = c;
    }
  }
  return best;
}

/**
 * Bits appended least significant first into bytes, at most 16 at a time into a 32-bit accumulator (a bit at a time
 * made the upgrade of 1 GiB's postings spend minutes in calls).
 */
export class BitWriter {
  private out = new Uint8Array(256);
  private length = 0;
  private acc = 0;
  private used = 0;

  /** The k ≤ 16 low bits of v (v < 2^k). */
  private put(v: number, k: number): void {
    this.acc |= v << this.used;
    this.used += k;
    while (this.used >= 8) {
      if (this.length === this.out.length) {
        const grown = new Uint8Array(this.out.length * 2);
        grown.set(this.out);
        this.out = grown;
      }
      this.out[this.length++] = this.acc & 0xff;
      this.acc >>>= 8;
      this.used -= 8;
    }
  }

  /** The low k bits of value (any k up to 53), least significant first. */
  low(value: number, k: number): void {
    let v = value % 2 ** k;
    for (; k > 16; k -= 16) {
      this.put(v % 65536, 16);
      v = Math.floor(v / 65536);
    }
    this.put(v, k);
  }

  /** q ones, then a zero. */
  unary(q: number): void {
    for (; q >= 16; q -= 16) this.put(0xffff, 16);
    this.put((1 << q) - 1, q + 1);
  }

  code(value: number, c: number, rice: number): void {
    if (c < rice) {
      this.unary(Math.floor(value / 2 ** c));
      this.low(value, c);
      return;
    }
    const k = c - rice;
    const w = value + 2 ** k;
    const q = log2floor(w) - k;
    this.unary(q);
    this.low(w, q + k);
  }

  finish(): Uint8Array {
    if (this.used > 0) this.put(0, 8 - this.used);
    return this.out.slice(0, this.length);
  }
}

/**
 * The bytes a list takes (the varint of its count and codes, and the stream), from its gaps and its counts less 1:
 * what encodePostings writes, without writing it (benches).
 */
export function codedPostingsBytes(gaps: Float64Array, less: Float64Array): number {
  const n = gaps.length;
  let bits = 0;
  const gapCode = bestCode(gaps, GAP_CODES, GAP_RICE);
  const freqCode = bestCode(less, FREQ_CODES, FREQ_RICE);
  for (let i = 0; i < n; i++)
    bits += bitsOf(gaps[i], gapCode, GAP_RICE) + bitsOf(less[i], freqCode, FREQ_RICE);
  let varint = 1;
  for (let v = (n - 1) * 256 + gapCode + (freqCode << 5); v >= 128; v = Math.floor(v / 128)) varint++;
  return varint + Math.ceil(bits / 8);
}

/**
 * Appends one list (chunks ascending, each count 1 to 65,535) to `out` as version 14 codes it. Throws on a list that
 * is empty, out of order or has a count out of range (the writers' own lists: a bug, not a stranger's bundle).
 */
export function encodePostings(out: ByteWriter, chunks: ArrayLike<number>, freqs: ArrayLike<number>): void {
  const n = chunks.length;
  if (n === 0 || freqs.length !== n)
    throw new Error(`pages: a postings list of ${n} chunks and ${freqs.length} counts`);
  const gaps = new Float64Array(n);
  const less = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    gaps[i] = i === 0 ? chunks[0] : chunks[i] - chunks[i - 1] - 1;
    less[i] = freqs[i] - 1;
    if (!(gaps[i] >= 0) || !(less[i] >= 0 && less[i] < MAX_FREQ))
      throw new Error(`pages: a postings list out of order or with a count of ${freqs[i]}`);
  }
  const gapCode = bestCode(gaps, GAP_CODES, GAP_RICE);
  const freqCode = bestCode(less, FREQ_CODES, FREQ_RICE);
  out.varint((n - 1) * 256 + (gapCode | (freqCode << 5)));
  const bits = new BitWriter();
  for (let i = 0; i < n; i++) {
    bits.code(gaps[i], gapCode, GAP_RICE);
    bits.code(less[i], freqCode, FREQ_RICE);
  }
  out.bytes(bits.finish());
}

/** The bytes one list takes as version 14 codes it (benches, tests). */
export function encodedPostingsBytes(chunks: ArrayLike<number>, freqs: ArrayLike<number>): Uint8Array {
  const out = new ByteWriter();
  encodePostings(out, chunks, freqs);
  return out.take();
}

/**
 * One list of version 14 (all of `bytes`) decoded, each value checked before it bounds a loop or an allocation: the
 * count against the chunks and the bits that could hold it (every posting takes at least 2 bits), every chunk below
 * `chunkCount` and every count at most 65,535, the stream ending in the list's last byte with its bits left over 0.
 * Throws an Error saying why (the caller names the word).
 */
export function decodePostings(bytes: Uint8Array, chunkCount: number): DecodedPostings {
  const r = new ByteReader(bytes);
  let n: number;
  let params: number;
  try {
    const head = r.varint();
    n = Math.floor(head / 256) + 1;
    params = head % 256;
  } catch (e) {
    throw new Error(`do not decode (${messageOf(e)})`);
  }
  const start = r.at;
  const totalBits = (bytes.length - start) * 8;
  if (n > chunkCount || 2 * n > totalBits)
    throw new Error(`hold ${n} postings in ${bytes.length} bytes of ${chunkCount} chunks`);
  const gapCode = params & 31;
  const freqCode = params >>> 5;
  const chunks = new Uint32Array(n);
  const freqs = new Uint16Array(n);
  const end = bytes.length * 8;
  let pos = start * 8;
  // Read a byte at a time (a bit at a time took 3× today's varint pairs' decode at 100 MiB): a unary run counts the
  // ones left in each byte, low bits are taken in the pieces each byte holds. Every read is bounded by the list's bits.
  const unary = (): number => {
    let q = 0;
    for (;;) {
      if (pos >= end) throw new Error('run past their bytes');
      const shift = pos & 7;
      const zeros = ~(bytes[pos >>> 3] >>> shift) & (0xff >>> shift);
      if (zeros === 0) {
        q += 8 - shift;
        pos += 8 - shift;
        continue;
      }
      const ones = 31 - Math.clz32(zeros & -zeros);
      pos += ones + 1;
      return q + ones;
    }
  };
  const low = (k: number): number => {
    if (pos + k > end) throw new Error('run past their bytes');
    let v = 0;
    for (let got = 0; got < k;) {
      const shift = pos & 7;
      const take = Math.min(8 - shift, k - got);
      v += ((bytes[pos >>> 3] >>> shift) & ((1 << take) - 1)) * 2 ** got;
      got += take;
      pos += take;
    }
    return v;
  };
  // A value is kept below 2^53 (an Exp-Golomb code past 52 bits refused before it is scaled).
  const code = (c: number, rice: number): number => {
    const q = unary();
    if (c < rice) return q * 2 ** c + low(c);
    const k = c - rice;
    if (q + k > 52) throw new Error(`hold a code of ${q + k} bits`);
    return 2 ** (q + k) + low(q + k) - 2 ** k;
  };
  let chunk = -1;
  for (let i = 0; i < n; i++) {
    chunk += code(gapCode, GAP_RICE) + 1;
    if (chunk >= chunkCount) throw new Error(`name chunk ${chunk} of ${chunkCount}`);
    const freq = code(freqCode, FREQ_RICE) + 1;
    if (freq > MAX_FREQ) throw new Error(`give a count of ${freq} (at most ${MAX_FREQ})`);
    chunks[i] = chunk;
    freqs[i] = freq;
  }
  if (end - pos >= 8) throw new Error(`end ${Math.floor((end - pos) / 8)} bytes before their end`);
  if (pos < end && low(end - pos) !== 0) throw new Error('end with bits that are not 0');
  return { chunks, freqs };
}

/**
 * One list as versions 1 to 13 code it (varint pairs: chunk gap, count), all of `bytes`, every chunk checked to
 * ascend and to be below `chunkCount`. Throws an Error saying why (the caller names the word).
 */
export function decodeVarintPostings(bytes: Uint8Array, chunkCount: number): DecodedPostings {
  const r = new ByteReader(bytes);
  const chunks: number[] = [];
  const freqs: number[] = [];
  // A damaged byte can end a varint past the list (or make it too long).
  const next = (): number => {
    try {
      return r.varint();
    } catch (e) {
      throw new Error(`do not decode (${messageOf(e)})`);
    }
  };
  let k = 0;
  while (r.at < bytes.length) {
    const gap = next();
    k += gap;
    if ((chunks.length > 0 && gap === 0) || k >= chunkCount)
      throw new Error(`name chunk ${k} out of order or of ${chunkCount}`);
    chunks.push(k);
    freqs.push(next());
  }
  return { chunks: Uint32Array.from(chunks), freqs: Uint16Array.from(freqs) };
}
