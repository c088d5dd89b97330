// Sentence vectors put in layout order (reorderRows): the store's order is already the layout's, and those vectors
// are used as they are, not copied (a second array of every vector while a library opens); any other order is
// copied into layout order.
import { describe, expect, it } from 'vitest';
import { layoutCorpus, reorderRows } from '../../../src/core/retrieval/corpusLayout.ts';

const chunk = (id: string) => ({ id, docId: id.split('#')[0], text: '', tokens: 1, start: 0 });
const sentence = (chunkId: string, index: number) => ({ chunkId, index, start: 0, end: 0, text: '' });

describe('reorderRows', () => {
  it('returns vectors already in layout order as they are', () => {
    const layout = layoutCorpus(
      [chunk('d1#0000#0001'), chunk('d1#0000#0000')],
      [sentence('d1#0000#0000', 0), sentence('d1#0000#0000', 1), sentence('d1#0000#0001', 2)],
    );
    const vectors = Float32Array.from([1, 1, 2, 2, 3, 3]);
    expect(reorderRows(vectors, 2, layout.sentenceSource)).toBe(vectors);
  });

  it('copies vectors in another order into layout order, leaving the caller’s as they were', () => {
    const layout = layoutCorpus(
      [chunk('d1#0000#0000'), chunk('d1#0000#0001')],
      [sentence('d1#0000#0001', 2), sentence('d1#0000#0000', 0), sentence('d1#0000#0000', 1)],
    );
    const vectors = Float32Array.from([3, 3, 1, 1, 2, 2]);
    const ordered = reorderRows(vectors, 2, layout.sentenceSource);
    expect(ordered).not.toBe(vectors);
    expect(Array.from(ordered)).toEqual([1, 1, 2, 2, 3, 3]);
    expect(Array.from(vectors)).toEqual([3, 3, 1, 1, 2, 2]);
    expect(() => reorderRows(vectors.subarray(2), 2, layout.sentenceSource)).toThrow(
      'retrieval input: 4 floats for 3 sentences of dimension 2',
    );
  });
});
