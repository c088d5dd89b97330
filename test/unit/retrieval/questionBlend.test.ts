// The words' share per question: passages of their own → the walk; sections of long documents → the words.
import { describe, expect, it } from 'vitest';
import { questionBlend } from '../../../src/core/retrieval/questionBlend.ts';

const options = { neighbours: 5, from: 1, to: 2.5 };

describe('questionBlend', () => {
  it('gives the walk a question whose best matches are one-passage documents', () => {
    expect(questionBlend({ topChunks: [0, 1, 2, 3, 4], documentChunks: () => 1 }, options)).toBe(0);
  });

  it('gives the words a question whose best matches are sections of long documents', () => {
    expect(questionBlend({ topChunks: [0, 1, 2, 3, 4], documentChunks: () => 40 }, options)).toBe(1);
  });

  it('goes between the two by where the matches lie, only the best `neighbours` counting', () => {
    // Three sections of 7-chunk documents (log2 8 = 3) and two passages (log2 2 = 1): mean 2.2 → (2.2 − 1) / 1.5.
    const sizes = [7, 7, 1, 7, 1, 100, 100];
    const blend = questionBlend(
      { topChunks: [0, 1, 2, 3, 4, 5, 6], documentChunks: (k) => sizes[k] },
      options,
    );
    expect(blend).toBeCloseTo(1.2 / 1.5, 10);
  });

  it('gives the walk when nothing matched by words', () => {
    expect(questionBlend({ topChunks: [], documentChunks: () => 50 }, options)).toBe(0);
  });
});
