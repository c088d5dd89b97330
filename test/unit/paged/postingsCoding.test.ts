// Version 14's postings (postingsCoding.ts): a varint of a list's count and each field's code (Rice or Exp-Golomb and
// its parameter), then each posting's gap and count less 1 in those codes, least significant bit first. The expected bytes below are worked out by hand from that
// rule; the refusals are lists a stranger's bundle could hold.
import { describe, expect, it } from 'vitest';
import { packed } from '../../support/packedBits.ts';
import {
  decodePostings,
  decodeVarintPostings,
  encodedPostingsBytes,
} from '../../../src/core/paged/postingsCoding.ts';

/** A list's first varint: (count − 1) × 256 + the gaps' code + 32 × the counts' code. */
function head(count: number, gapCode: number, freqCode: number): number[] {
  const out: number[] = [];
  let v = (count - 1) * 256 + gapCode + 32 * freqCode;
  while (v >= 128) {
    out.push((v % 128) | 128);
    v = Math.floor(v / 128);
  }
  return [...out, v];
}

describe('postings coded as Rice codes (version 14)', () => {
  it('codes a run of chunks each with a count of 1 in two bits a posting', () => {
    // Gaps 0, 0, 0, 0 and counts less 1 all 0: both parameters 0, each posting "0" then "0".
    const bytes = encodedPostingsBytes([0, 1, 2, 3], [1, 1, 1, 1]);
    expect([...bytes]).toEqual([...head(4, 0, 0), 0]);
    expect(head(4, 0, 0)).toEqual([128, 6]);
    expect(decodePostings(bytes, 4)).toEqual({
      chunks: Uint32Array.of(0, 1, 2, 3),
      freqs: Uint16Array.of(1, 1, 1, 1),
    });
  });

  it('picks the code that makes the list shortest (the smaller on a tie)', () => {
    // Chunk 5 (gap 5): Rice 0 takes 6 bits, Rice 1, 2 and 3 and Exp-Golomb 1 take 4: Rice 1, "110" then the low bit
    // 1. Count 3 (2 less 1): 3 bits in Rice 0, 1, 2 and Exp-Golomb 0: Rice 0, "110". The head: 0 × 256 + 1 + 32 × 0.
    const bytes = encodedPostingsBytes([5], [3]);
    expect([...bytes]).toEqual([...head(1, 1, 0), ...packed([1, 1, 0, 1, 1, 1, 0])]);
    expect(decodePostings(bytes, 6)).toEqual({ chunks: Uint32Array.of(5), freqs: Uint16Array.of(3) });
  });

  it('writes an outlier in Exp-Golomb (a count of 300 among ones in 17 bits, not 300)', () => {
    // Counts less 1: 0 × 7 and 299. Rice 0 takes 7 + 300 bits; Exp-Golomb 0 takes 7 + 17 (299 + 1 is 9 bits past
    // the parameter's 0: "111111110", then 8 bits). Gaps all 0: Rice 0, a bit each. 8 + 24 bits: 4 bytes after the head's 2.
    const bytes = encodedPostingsBytes([0, 1, 2, 3, 4, 5, 6, 7], [1, 1, 1, 1, 1, 1, 1, 300]);
    expect([...bytes.subarray(0, 2), bytes.length]).toEqual([...head(8, 0, 4), 6]);
    expect(decodePostings(bytes, 8).freqs).toEqual(Uint16Array.of(1, 1, 1, 1, 1, 1, 1, 300));
  });

  it('decodes every list it codes, large gaps and counts too', () => {
    const chunks = [3, 4, 90, 1000, 70_000, 70_001, 4_000_000];
    const freqs = [1, 2, 1, 65_535, 17, 1, 300];
    const bytes = encodedPostingsBytes(chunks, freqs);
    expect(decodePostings(bytes, 4_000_001)).toEqual({
      chunks: Uint32Array.from(chunks),
      freqs: Uint16Array.from(freqs),
    });
  });

  it('refuses a list that holds a chunk past the library, more postings than its bits, or bytes left over', () => {
    // One posting, gap "1110" (Rice 0: 3), count "0": chunk 3.
    expect(() => decodePostings(Uint8Array.of(...head(1, 0, 0), 7), 3)).toThrow('name chunk 3 of 3');
    expect(decodePostings(Uint8Array.of(...head(1, 0, 0), 7), 4).chunks).toEqual(Uint32Array.of(3));
    expect(() => decodePostings(Uint8Array.of(...head(100, 0, 0), 0), 1000)).toThrow(
      'hold 100 postings in 4 bytes',
    );
    expect(() => decodePostings(Uint8Array.of(...head(2, 0, 0), 0), 1)).toThrow(
      'hold 2 postings in 3 bytes of 1 chunks',
    );
    expect(() => decodePostings(Uint8Array.of(...head(4, 0, 0), 0, 0), 4)).toThrow(
      'end 1 bytes before their end',
    );
    expect(() => decodePostings(Uint8Array.of(1, 59 | 0x80), 6)).toThrow('end with bits that are not 0');
    expect(() => decodePostings(Uint8Array.of(0, 0xff), 6)).toThrow('run past their bytes');
    expect(() => decodePostings(Uint8Array.of(0x80), 6)).toThrow('do not decode');
    // A count of 65,537: the counts' code 4 (Exp-Golomb 0), 16 ones, a zero, then 65,537's 16 bits below its top.
    const big = packed([0, ...Array<number>(16).fill(1), 0, 1, ...Array<number>(15).fill(0)]);
    expect(() => decodePostings(Uint8Array.of(...head(1, 0, 4), ...big), 6)).toThrow('give a count of 65537');
    // An Exp-Golomb code of parameter 7 (the gaps' code 31) 46 bits past it: 53 bits, refused before it is read.
    const long = packed([...Array<number>(46).fill(1), 0]);
    expect(() => decodePostings(Uint8Array.of(...head(1, 31, 0), ...long), 6)).toThrow(
      'hold a code of 53 bits',
    );
  });

  it('refuses to write a list that is empty, out of order or with a count of 0', () => {
    expect(() => encodedPostingsBytes([], [])).toThrow('a postings list of 0 chunks');
    expect(() => encodedPostingsBytes([2, 2], [1, 1])).toThrow('out of order');
    expect(() => encodedPostingsBytes([2], [0])).toThrow('a count of 0');
  });
});

describe('postings as varint pairs (versions 1 to 13)', () => {
  it('decodes gaps and counts, and refuses a chunk out of order or past the library', () => {
    expect(decodeVarintPostings(Uint8Array.of(2, 1, 3, 4), 6)).toEqual({
      chunks: Uint32Array.of(2, 5),
      freqs: Uint16Array.of(1, 4),
    });
    expect(() => decodeVarintPostings(Uint8Array.of(2, 1, 0, 1), 6)).toThrow('name chunk 2 out of order');
    expect(() => decodeVarintPostings(Uint8Array.of(6, 1), 6)).toThrow('name chunk 6 out of order or of 6');
    expect(() => decodeVarintPostings(Uint8Array.of(2, 0x80), 6)).toThrow('do not decode');
  });
});
