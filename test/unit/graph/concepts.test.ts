import { describe, expect, it } from 'vitest';
import { conceptIndex, extractConcepts } from '../../../src/core/graph/concepts.ts';

// Four chunks: df a=2, b=3, c=2, d=2, e=1 over N=4.
const CHUNKS = [
  ['a', 'b', 'c'],
  ['a', 'b'],
  ['b', 'c', 'd', 'd'],
  ['d', 'e'],
];

describe('extractConcepts', () => {
  it('keeps every term with its chunk sets and IDF = ln(N/df) when uncapped', () => {
    const t = extractConcepts(CHUNKS, { conceptsPerChunk: 0, maxDfFraction: 1 });
    expect(t.terms).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(Array.from(t.idf)).toEqual(
      [2, 3, 2, 2, 1].map((df) => expect.closeTo(Math.log(4 / df), 6)) as unknown as number[],
    );
    const ids = conceptIndex(t);
    const chunksOf = (term: string): number[] => {
      const c = ids.get(term)!;
      return Array.from(t.conceptChunks.subarray(t.conceptChunkOffsets[c], t.conceptChunkOffsets[c + 1]));
    };
    expect(chunksOf('a')).toEqual([0, 1]);
    expect(chunksOf('b')).toEqual([0, 1, 2]);
    expect(chunksOf('d')).toEqual([2, 3]);
    expect(chunksOf('e')).toHaveLength(1);
    // chunk 2 holds b, c, d; d has tf 2 so TF-IDF 2·ln 2.
    const row = Array.from(t.chunkConcepts.subarray(t.chunkConceptOffsets[2], t.chunkConceptOffsets[3]));
    expect(row.map((c) => t.terms[c])).toEqual(['b', 'c', 'd']);
    const w = Array.from(t.chunkConceptWeights.subarray(t.chunkConceptOffsets[2], t.chunkConceptOffsets[3]));
    expect(w[0]).toBeCloseTo(Math.log(4 / 3), 6);
    expect(w[2]).toBeCloseTo(2 * Math.log(2), 6);
  });

  it('keeps the top-K terms per chunk by TF-IDF, ties broken alphabetically', () => {
    const t = extractConcepts(CHUNKS, { conceptsPerChunk: 1, maxDfFraction: 1 });
    // chunk0: a (ln2) ties c (ln2) → a; chunk1: a; chunk2: d (2 ln2); chunk3: e (ln4).
    expect(t.terms).toEqual(['a', 'd', 'e']);
    const perChunk = [0, 1, 2, 3].map((k) =>
      Array.from(t.chunkConcepts.subarray(t.chunkConceptOffsets[k], t.chunkConceptOffsets[k + 1])).map(
        (c) => t.terms[c],
      ),
    );
    expect(perChunk).toEqual([['a'], ['a'], ['d'], ['e']]);
    // T(d) holds only the chunk it was kept for, not chunk 3 where it lost to e.
    expect(t.conceptChunkOffsets[2] - t.conceptChunkOffsets[1]).toBe(1);
  });

  it('drops terms above the document-frequency cap', () => {
    // 100 chunks: x in 5, y in 6, z in 1. cap = max(floor(0.05·100), 3) = 5 → y (df 6) is not a concept (the
    // floor set to 3 here; the product's is 20).
    const chunks = Array.from({ length: 100 }, (_, k) => [
      `filler${k}`,
      ...(k < 5 ? ['x'] : []),
      ...(k < 6 ? ['y'] : []),
      ...(k === 0 ? ['z'] : []),
    ]);
    const t = extractConcepts(chunks, { conceptsPerChunk: 0, maxDfFraction: 0.05, minDfCap: 3 });
    expect(t.terms.includes('x')).toBe(true);
    expect(t.terms.includes('y')).toBe(false);
    expect(t.terms.includes('z')).toBe(true);
  });

  it('lets a term shared by up to 3 chunks of a small library be a concept', () => {
    // N = 4: 5% would be no chunk at all; the floor is min(3, N − 1) = 3, so b (df 3) stays and a term in all 4
    // chunks does not.
    const t = extractConcepts([...CHUNKS.slice(0, 3).map((c) => [...c, 'all']), [...CHUNKS[3], 'all']], {
      conceptsPerChunk: 0,
      maxDfFraction: 0.05,
    });
    expect(t.terms).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('does not depend on the order of terms inside a chunk', () => {
    const shuffled = CHUNKS.map((c) => [...c].reverse());
    const a = extractConcepts(CHUNKS, { conceptsPerChunk: 2, maxDfFraction: 1 });
    const b = extractConcepts(shuffled, { conceptsPerChunk: 2, maxDfFraction: 1 });
    expect(b.terms).toEqual(a.terms);
    expect(Array.from(b.chunkConcepts)).toEqual(Array.from(a.chunkConcepts));
  });

  it('rejects invalid options with the reason', () => {
    expect(() => extractConcepts(CHUNKS, { conceptsPerChunk: -1, maxDfFraction: 1 })).toThrow(
      /conceptsPerChunk/,
    );
    expect(() => extractConcepts(CHUNKS, { conceptsPerChunk: 0, maxDfFraction: 0 })).toThrow(/maxDfFraction/);
  });
});
