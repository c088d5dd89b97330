// Version 12's packed concept lists (listPacking.ts, FORMAT.md "Version 12"): each list's bytes, the packing into
// blocks, the count of lists starting in each block that `open` keeps, and where a reader finds a list from it alone.
import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../../src/core/paged/bytes.ts';
import {
  leastListBytes,
  listFirstsOf,
  listSpanOf,
  listStartsOf,
  ListPacker,
  readListCounts,
  skipList,
} from '../../../src/core/paged/listPacking.ts';

const fail = (why: string): never => {
  throw new Error(why);
};

/** Packs lists of [chunks, counts] into blocks of `block` bytes: the section's bytes and where each list starts. */
function pack(lists: [number[], number[]][], block: number): { bytes: Uint8Array; starts: number[] } {
  const packer = new ListPacker(lists.length, block);
  for (const [chunks, counts] of lists) packer.add(chunks, counts, 0, chunks.length);
  return { bytes: packer.take(), starts: Array.from(packer.starts) };
}

/** A list read as a reader reads it: from its block's first byte, the lists before it skipped. */
function readList(bytes: Uint8Array, df: number[], firsts: Uint32Array, c: number, block: number) {
  const [from, to] = listSpanOf(firsts, c, block, bytes.length);
  const r = new ByteReader(bytes.subarray(from, to));
  let first = 0;
  while (first + 1 < firsts.length && firsts[first + 1] <= c) first++;
  for (let j = firsts[first]; j < c; j++) skipList(r, df[j]);
  const gaps: number[] = [];
  for (let i = 0; i < df[c]; i++) gaps.push(r.varint());
  const counts = new Uint32Array(df[c]);
  readListCounts(r, df[c], counts);
  let k = 0;
  return { chunks: gaps.map((g) => (k += g)), counts: Array.from(counts), span: [from, to] };
}

describe('version 12 packed lists', () => {
  it('write each list as its gaps, its counts in 4 bits two a byte (0: a count of 16 or more, less 16 after)', () => {
    // Chunks 3 and 10 (gaps 3, 7), counts 1 (low half) and 17 (code 0 in the high half, then 17 − 16 = 1).
    expect(
      Array.from(
        pack(
          [
            [
              [3, 10],
              [1, 17],
            ],
          ],
          128,
        ).bytes,
      ),
    ).toEqual([3, 7, 0x01, 1]);
    // Chunk 200 (a two-byte varint), count 15 (the last code before the escape), the high half of the byte 0.
    expect(Array.from(pack([[[200], [15]]], 128).bytes)).toEqual([0xc8, 0x01, 0x0f]);
    // Three counts 2, 3, 16: codes 0x32 then 0x00 (the escape, and an odd list's empty half), then 16 − 16 = 0.
    expect(
      Array.from(
        pack(
          [
            [
              [0, 1, 2],
              [2, 3, 16],
            ],
          ],
          128,
        ).bytes,
      ),
    ).toEqual([0, 1, 1, 0x32, 0x00, 0]);
    expect(leastListBytes(1)).toBe(2);
    expect(leastListBytes(3)).toBe(5);
  });

  it('start a list that does not fit in what is left of its block, and the list after a longer one, on a block', () => {
    const lists: [number[], number[]][] = [
      [
        [1, 2],
        [1, 1],
      ], // 3 bytes at 0
      [[5], [2]], // 2 bytes at 3 (5 ≤ 8)
      [
        [1, 2],
        [1, 1],
      ], // 3 bytes: 5 + 3 = 8 fits, at 5
      [
        [4, 6],
        [1, 1],
      ], // 3 bytes: the block is full, at 8
      [
        [0, 1, 2, 3, 4, 5, 6],
        [1, 1, 1, 1, 1, 1, 1],
      ], // 11 bytes, longer than a block: at 16, to 27
      [[9], [1]], // after a longer list: at 32 (not 27)
    ];
    const { bytes, starts } = pack(lists, 8);
    expect(starts).toEqual([0, 3, 5, 8, 16, 32, 34]);
    expect(bytes.length).toBe(34);
    // The bytes left over are zeros.
    expect(Array.from(bytes.subarray(11, 16))).toEqual([0, 0, 0, 0, 0]);
    expect(Array.from(bytes.subarray(27, 32))).toEqual([0, 0, 0, 0, 0]);
    // `open` keeps how many lists start in each block: 3, 1, 1 (the long list), 0 (its end), 1.
    const counts = listStartsOf(starts, 8);
    expect(Array.from(counts)).toEqual([3, 1, 1, 0, 1]);
    const df = lists.map(([chunks]) => chunks.length);
    const firsts = listFirstsOf(counts, df, 8, fail);
    expect(Array.from(firsts)).toEqual([0, 3, 4, 5, 5, 6]);
    // A read takes its block to the block before the next list's: one block, or the long list's two.
    expect(listSpanOf(firsts, 0, 8, 34)).toEqual([0, 8]);
    expect(listSpanOf(firsts, 2, 8, 34)).toEqual([0, 8]);
    expect(listSpanOf(firsts, 3, 8, 34)).toEqual([8, 16]);
    expect(listSpanOf(firsts, 4, 8, 34)).toEqual([16, 32]);
    expect(listSpanOf(firsts, 5, 8, 34)).toEqual([32, 34]);
    for (let c = 0; c < lists.length; c++) {
      const list = readList(bytes, df, firsts, c, 8);
      expect([list.chunks, list.counts], `concept ${c}`).toEqual(lists[c]);
    }
  });

  it('refuses list starts that do not add up to the concepts, or more lists in a block than it holds', () => {
    const df = [1, 1, 1, 1, 1];
    expect(Array.from(listFirstsOf([4, 1], df, 8, fail))).toEqual([0, 4, 5]);
    expect(() => listFirstsOf([4, 0], df, 8, fail)).toThrow('start 4 lists, expected 5 (listStarts)');
    expect(() => listFirstsOf([4, 2], df, 8, fail)).toThrow('start more lists than the 5 concepts');
    expect(() => listFirstsOf([2 ** 40, 1], df, 8, fail)).toThrow('start more lists than the 5 concepts');
    // Five lists of one chunk in 8 bytes: the four before the last take at least 8, the fifth may run on.
    expect(Array.from(listFirstsOf([5], df, 8, fail))).toEqual([0, 5]);
    expect(() => listFirstsOf([5], df, 6, fail)).toThrow(
      'start 5 lists in block 0, more than its 6 bytes hold',
    );
    // Lists of no chunk take no bytes.
    expect(Array.from(listFirstsOf([3], [0, 0, 2], 4, fail))).toEqual([0, 3]);
  });

  it('refuses a list that runs past its bytes, ends in a code, or holds a count past 32 bits', () => {
    // Two counts read from one byte but three asked: past the end.
    expect(() => readListCounts(new ByteReader(Uint8Array.from([0x11])), 3, new Uint32Array(3))).toThrow(
      'runs past its bytes',
    );
    expect(() => readListCounts(new ByteReader(Uint8Array.from([0x21])), 1, new Uint32Array(1))).toThrow(
      'ends in a code',
    );
    const huge = [0x00, 0xff, 0xff, 0xff, 0xff, 0x0f];
    expect(() => readListCounts(new ByteReader(Uint8Array.from(huge)), 1, new Uint32Array(1))).toThrow(
      'does not fit 32 bits',
    );
    // A df far past the bytes stops at their end.
    expect(() => skipList(new ByteReader(Uint8Array.from([1, 2, 3])), 2 ** 31)).toThrow(
      'runs past its bytes',
    );
  });
});
