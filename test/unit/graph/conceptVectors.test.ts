import { describe, expect, it } from 'vitest';
import { extractConcepts } from '../../../src/core/graph/concepts.ts';
import { computeConceptVectors } from '../../../src/core/graph/conceptVectors.ts';

// Chunk 0 has sentences "a b" and "a a c", chunk 1 the sentence "b"; concept d is in chunk 1's term list but in
// no sentence (like a phrase split across sentences), so it falls back to the mean of chunk 1's sentences.
const table = extractConcepts(
  [
    ['a', 'b', 'a', 'a', 'c'],
    ['b', 'd'],
  ],
  { conceptsPerChunk: 0, maxDfFraction: 1 },
);
const layout = {
  sentenceOffsets: Uint32Array.from([0, 2, 3]),
  sentenceTerms: [['a', 'b'], ['a', 'a', 'c'], ['b']],
};
// s0 = (1, 0), s1 = (0, 1), s2 = (0.6, 0.8).
const SENTENCES = Float32Array.from([1, 0, 0, 1, 0.6, 0.8]);

describe('concept vectors', () => {
  it('averages the sentences containing each concept (a repeated term counts once), unit length', () => {
    expect(table.terms).toEqual(['a', 'b', 'c', 'd']);
    const v = Array.from(computeConceptVectors(table, layout, SENTENCES, 2), (x) => Number(x.toFixed(5)));
    const r = Math.SQRT1_2;
    // a = s0 + s1; b = s0 + s2 = (1.6, 0.8); c = s1; d = s2 (fallback).
    const bn = Math.hypot(1.6, 0.8);
    expect(v).toEqual([r, r, 1.6 / bn, 0.8 / bn, 0, 1, 0.6, 0.8].map((x) => Number(x.toFixed(5))));
  });

  it('refuses a layout or vectors that do not match', () => {
    expect(() =>
      computeConceptVectors(table, { ...layout, sentenceOffsets: Uint32Array.from([0, 3]) }, SENTENCES, 2),
    ).toThrow('concept vectors: sentenceOffsets does not match the chunk count and the sentence list');
    expect(() => computeConceptVectors(table, layout, SENTENCES, 3)).toThrow(
      'concept vectors: 6 floats for 3 sentences of dimension 3',
    );
  });
});
