// Vector helpers and per-call de-duplication, on hand-computed values.
import { describe, expect, it } from 'vitest';
import {
  chunkVectors,
  dot,
  meanNormalized,
  normalize,
  normalizeRows,
} from '../../../src/core/embed/vectors.ts';
import { expandRows, uniqueTexts } from '../../../src/core/embed/dedupe.ts';
import type { PreparedDocument } from '../../../src/core/types.ts';

function doc(chunks: Array<[number, number]>, sentences: number): PreparedDocument {
  return {
    doc: {
      id: 'd1',
      title: 't',
      sourceName: 'f',
      mime: 'text/plain',
      size: 0,
      hash: 'h',
      addedAt: 0,
      text: '',
    },
    sections: [],
    chunks: chunks.map(([firstSentence, sentenceCount], i) => ({
      id: `d1#0000#${i}`,
      docId: 'd1',
      sectionIndex: 0,
      position: i,
      order: i,
      start: 0,
      end: 0,
      text: '',
      tokens: 0,
      firstSentence,
      sentenceCount,
    })),
    sentences: Array.from({ length: sentences }, (_, i) => ({
      id: `d1:${i}`,
      docId: 'd1',
      chunkId: '',
      index: i,
      start: 0,
      end: 0,
      text: '',
    })),
  };
}

describe('vectors', () => {
  it('normalizes rows and leaves zero rows at zero', () => {
    const m = normalizeRows(new Float32Array([3, 4, 0, 0, 0, 2]), 2);
    [0.6, 0.8, 0, 0, 0, 1].forEach((v, i) => expect(m[i]).toBeCloseTo(v, 6));
    expect(Array.from(normalize(new Float32Array([0, 0, 5])))).toEqual([0, 0, 1]);
    expect(() => normalizeRows(new Float32Array(5), 2)).toThrow(/not a multiple of dimension 2/);
  });

  it('dot works on whole vectors and on row offsets', () => {
    const m = new Float32Array([1, 2, 3, 4]);
    expect(dot(m, m)).toBe(30);
    expect(dot(m, m, 2, 0, 2)).toBe(1 * 3 + 2 * 4);
  });

  it('meanNormalized averages rows then normalizes', () => {
    // rows (1,0) and (0,1): mean (0.5,0.5) → (1/√2, 1/√2)
    const v = meanNormalized(new Float32Array([9, 9, 1, 0, 0, 1]), 2, 1, 2);
    expect(v[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(v[1]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(() => meanNormalized(new Float32Array(4), 2, 1, 2)).toThrow(/exceed the matrix of 2 rows/);
  });

  it('chunkVectors gives each chunk the normalized mean of its sentences', () => {
    const s = new Float32Array([1, 0, 0, 1, 0, 1]); // sentences (1,0) (0,1) (0,1)
    const c = chunkVectors(
      doc(
        [
          [0, 2],
          [2, 1],
        ],
        3,
      ),
      s,
      2,
    );
    expect(c[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(c[1]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(Array.from(c.subarray(2))).toEqual([0, 1]);
    expect(() => chunkVectors(doc([[0, 4]], 3), s, 2)).toThrow(/covers sentences 0\+4 but document d1 has 3/);
    expect(() => chunkVectors(doc([[0, 1]], 2), s, 2)).toThrow(/has 2 sentences × 2 dims but got 6 floats/);
  });

  it('uniqueTexts and expandRows embed repeated texts once and copy their rows', () => {
    const { unique, index } = uniqueTexts(['a', 'b', 'a', 'c', 'b']);
    expect(unique).toEqual(['a', 'b', 'c']);
    expect(Array.from(index)).toEqual([0, 1, 0, 2, 1]);
    const rows = expandRows(new Float32Array([1, 1, 2, 2, 3, 3]), index, 2);
    expect(Array.from(rows)).toEqual([1, 1, 2, 2, 1, 1, 3, 3, 2, 2]);
  });
});
