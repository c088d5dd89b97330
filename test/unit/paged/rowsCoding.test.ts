// Version 15's rows (rowsCoding.ts), and version 16's that start with their count: a chunk's concept ids as Rice codes of their gaps, the parameter computed from
// the chunk's concept count m and the concepts, ⌊log2 ⌊concepts / (m + 1)⌋⌋, least significant bit first. The expected
// bytes below are worked out by hand from that rule; the refusals are rows a stranger's bundle could hold.
import { describe, expect, it } from 'vitest';
import { packed } from '../../support/packedBits.ts';
import {
  decodeDelimitedRows,
  decodeRow,
  encodedDelimitedRow,
  encodedRow,
  rowRiceParameter,
} from '../../../src/core/paged/rowsCoding.ts';

/** A row decoded alone (all of `bytes`), as a reader decodes a group of one chunk. */
function decoded(bytes: ArrayLike<number>, m: number, concepts: number): number[] {
  const b = Uint8Array.from(bytes);
  const ids = new Uint32Array(m);
  const end = decodeRow(b, 0, b.length, m, concepts, ids, 0);
  if (end !== b.length) throw new Error(`ended at ${end} of ${b.length}`);
  return [...ids];
}

describe('rows coded as Rice codes (version 15)', () => {
  it('computes the parameter from the count and the concepts, in whole numbers', () => {
    expect(rowRiceParameter(0, 1000)).toBe(9); // ⌊log2 1000⌋
    expect(rowRiceParameter(9, 1000)).toBe(6); // ⌊log2 100⌋
    expect(rowRiceParameter(3, 16)).toBe(2); // ⌊log2 4⌋
    expect(rowRiceParameter(999, 1000)).toBe(0); // 1
    expect(rowRiceParameter(1000, 1000)).toBe(0); // 0
    expect(rowRiceParameter(0, 2 ** 33)).toBe(33);
    expect(rowRiceParameter(0, 2 ** 33 - 1)).toBe(32);
  });

  it('writes a row of 3 ids of 16 concepts in 9 bits: gaps 0, 0, 3 with parameter 2', () => {
    // Ids 0, 1, 5: gaps 0, 1 − 0 − 1 = 0, 5 − 1 − 1 = 3; each "0" (quotient 0) then its 2 low bits.
    const bits = [0, 0, 0, 0, 0, 0, 0, 1, 1];
    expect([...encodedRow([0, 1, 5], 16)]).toEqual(packed(bits));
    expect(packed(bits)).toEqual([0x80, 0x01]);
    expect(decoded([0x80, 0x01], 3, 16)).toEqual([0, 1, 5]);
  });

  it('writes a quotient in unary: one id of 4 concepts (parameter 1) at 3 is "10" then 1', () => {
    expect([...encodedRow([3], 4)]).toEqual(packed([1, 0, 1]));
    expect(decoded(packed([1, 0, 1]), 1, 4)).toEqual([3]);
  });

  it('takes a parameter past 24 bits (a few ids among 2^32 concepts) a piece at a time', () => {
    expect(rowRiceParameter(1, 2 ** 32)).toBe(31);
    expect(rowRiceParameter(2, 2 ** 32)).toBe(30); // ⌊log2 1,431,655,765⌋
    // One id: quotient 1 ("10") then its 31 low bits, 2^32 − 5 − 2^31 = 2^31 − 5.
    const one = encodedRow([2 ** 32 - 5], 2 ** 32);
    expect(one.length).toBe(5); // 33 bits
    expect(decoded(one, 1, 2 ** 32)).toEqual([2 ** 32 - 5]);
    expect(decoded(encodedRow([0, 2 ** 31 + 7], 2 ** 32), 2, 2 ** 32)).toEqual([0, 2 ** 31 + 7]);
  });

  it('writes no bytes for a row of no concepts, and reads none', () => {
    expect(encodedRow([], 10).length).toBe(0);
    expect(decodeRow(new Uint8Array(2), 1, 2, 0, 10, new Uint32Array(0), 0)).toBe(1);
  });

  it('decodes what it encodes, rows after one another, for rows of every density', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const concepts of [1, 2, 17, 1000, 591_013, 5_090_000]) {
      const rows: number[][] = [];
      for (let r = 0; r < 20; r++) {
        const density = [0.001, 0.05, 0.5, 1][r % 4];
        const row: number[] = [];
        for (let c = 0; c < Math.min(concepts, 3000); c++) if (random() < density) row.push(c);
        if (concepts > 3000 && row.length > 0) row[row.length - 1] = concepts - 1;
        rows.push(row);
      }
      const bytes = Uint8Array.from(rows.flatMap((row) => [...encodedRow(row, concepts)]));
      let at = 0;
      for (const row of rows) {
        const ids = new Uint32Array(row.length);
        at = decodeRow(bytes, at, bytes.length, row.length, concepts, ids, 0);
        expect([...ids]).toEqual(row);
      }
      expect(at).toBe(bytes.length);
    }
  });

  it('refuses rows that lie: more ids than their bits hold, a run past their bytes, a concept out of range, bits left over', () => {
    // 3 ids of parameter 2 take 9 bits at least: 1 byte cannot hold them.
    expect(() => decoded([0x80], 3, 16)).toThrow('holds 3 concept ids in 1 bytes');
    // All ones: the unary run never ends within the row.
    expect(() => decoded([0xff], 1, 4)).toThrow('runs past its bytes');
    // Of 4 concepts (parameter 1): "1110" then low bit 0 is 3 × 2 + 0 = 6.
    expect(() => decoded(packed([1, 1, 1, 0, 0]), 1, 4)).toThrow('names concept 6 of 4');
    // Id 0 ("0", low bit 0) with a 1 left over in its byte.
    expect(() => decoded([0x80], 1, 4)).toThrow('ends with bits that are not 0');
    // Low bits past the row: a quotient of 0 and no room for the parameter's 5 bits (of 64 concepts, 1 id).
    expect(() => decoded(packed([1, 1, 1, 1, 1, 1, 1, 0]), 1, 64)).toThrow('runs past its bytes');
    // Out of order or out of range ids are the writer's own mistake, refused before a byte is written.
    expect(() => encodedRow([3, 3], 10)).toThrow('a row out of order');
    expect(() => encodedRow([10], 10)).toThrow('naming concept 10');
  });
});

describe('rows that carry their own count (version 16)', () => {
  /** Rows decoded from a block of `rows` rows, as [ids of each row]. */
  const rowsOf = (bytes: ArrayLike<number>, rows: number, concepts: number): number[][] => {
    const { starts, ids } = decodeDelimitedRows(Uint8Array.from(bytes), rows, concepts);
    return Array.from({ length: rows }, (_, r) => [...ids.subarray(starts[r], starts[r + 1])]);
  };

  it('writes the count as an Exp-Golomb code of order 5 before the Rice codes: 3 ids of 16 concepts in 15 bits', () => {
    // m = 3: no quotient ("0"), then the 5 low bits of 3 + 32 (1, 1, 0, 0, 0); then version 15's 9 bits.
    const bits = [0, 1, 1, 0, 0, 0, ...[0, 0, 0, 0, 0, 0, 0, 1, 1]];
    expect([...encodedDelimitedRow([0, 1, 5], 16)]).toEqual(packed(bits));
    expect(rowsOf(packed(bits), 1, 16)).toEqual([[0, 1, 5]]);
  });

  it('writes a count of 32 or more with a quotient: 40 is "10" then the 6 low bits of 72', () => {
    const ids = Array.from({ length: 40 }, (_, i) => i);
    const bytes = encodedDelimitedRow(ids, 40);
    // 72 = 0b1001000: its 6 low bits 0, 0, 0, 1, 0, 0 (least first); then 40 ids of parameter 0, each "0".
    expect(packed([1, 0, 0, 0, 0, 1, 0, 0, ...ids.map(() => 0)])).toEqual([...bytes]);
    expect(rowsOf(bytes, 1, 40)).toEqual([ids]);
  });

  it('writes a row of no concepts as its count alone, one byte', () => {
    expect([...encodedDelimitedRow([], 10)]).toEqual([0]);
    expect(rowsOf([0, 0, 0], 3, 10)).toEqual([[], [], []]);
  });

  it('decodes rows one after another from their block, each count from its own bytes', () => {
    const rows = [[3], [], [0, 1, 5, 9], [15]];
    const bytes = rows.flatMap((row) => [...encodedDelimitedRow(row, 16)]);
    expect(rowsOf(bytes, 4, 16)).toEqual(rows);
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const concepts of [1, 17, 1000, 591_013]) {
      const many: number[][] = [];
      for (let r = 0; r < 12; r++) {
        const row: number[] = [];
        for (let c = 0; c < Math.min(concepts, 2000); c++)
          if (random() < [0.002, 0.05, 0.6][r % 3]) row.push(c);
        many.push(row);
      }
      expect(
        rowsOf(
          many.flatMap((row) => [...encodedDelimitedRow(row, concepts)]),
          12,
          concepts,
        ),
      ).toEqual(many);
    }
  });

  it('refuses a count that lies, naming the chunk: more ids than the bytes hold, more than the concepts, bytes left over', () => {
    // A count of 8 ("0", then 8 + 32's low bits 0, 0, 0, 1, 0) in a row of 1 byte: 8 codes of parameter 0 need 8 bits.
    expect(() => decodeDelimitedRows(Uint8Array.from(packed([0, 0, 0, 0, 1, 0])), 1, 16, 7)).toThrow(
      "chunk 7's row holds 8 concept ids in 1 bytes",
    );
    // A count of 40 among 16 concepts.
    expect(() =>
      decodeDelimitedRows(
        Uint8Array.from(
          encodedDelimitedRow(
            Array.from({ length: 40 }, (_, i) => i),
            40,
          ),
        ),
        1,
        16,
      ),
    ).toThrow("chunk 0's row gives 40 concepts of 16");
    // All ones: the count's unary run never ends.
    expect(() => decodeDelimitedRows(Uint8Array.of(0xff, 0xff), 1, 16)).toThrow(
      "chunk 0's row runs past its bytes",
    );
    // Two rows of no concepts where the block says one.
    expect(() => decodeDelimitedRows(Uint8Array.of(0, 0), 1, 16)).toThrow('1 bytes past their 1 rows');
    // More rows than bytes: refused before anything is allocated.
    expect(() => decodeDelimitedRows(Uint8Array.of(0), 2 ** 31, 16)).toThrow(
      '1 bytes cannot hold 2147483648 rows',
    );
  });
});
