import { describe, expect, it } from 'vitest';
import { RetrievalEngine, type RetrievalInput } from '../../../src/core/retrieval/engine.ts';
import { LibraryWordVectors } from '../../../src/core/retrieval/relatedWords.ts';
import { withWordEdges, wordEdges } from '../../../src/core/graph/wordEdges.ts';
import type { ConceptTable } from '../../../src/core/graph/concepts.ts';
import { WordVectors } from '../../../src/core/text/wordVectors.ts';
import { toyAnalyzer } from './toyAnalyzer.ts';

// Four-dimensional vectors written by hand: "crawls" and "slow" point nearly the same way (cosine 0.8/√0.68 ≈ 0.97),
// "sluggish" too, "table" and "rows" elsewhere.
const WORDS = ['slow', 'crawls', 'sluggish', 'table', 'rows', 'fast'];
const ROWS = [
  [1, 0, 0, 0],
  [0.8, 0.2, 0, 0],
  [0.9, 0, 0.1, 0],
  [0, 0, 1, 0],
  [0, 0, 0.6, 0.8],
  [-1, 0, 0, 0],
];

describe('word-vector file', () => {
  it('reads back the words and the cosines of the int8 rows', () => {
    const v = WordVectors.parse(WordVectors.encode(WORDS, ROWS));
    expect(v.size).toBe(6);
    expect(v.dimension).toBe(4);
    expect(v.row('rows')).toBe(4);
    expect(v.row('absent')).toBeUndefined();
    // slow · crawls = 0.8 / (1 · √(0.64 + 0.04)); int8 rounding moves it by well under 0.01.
    expect(v.cosine(0, 1)).toBeCloseTo(0.8 / Math.sqrt(0.68), 2);
    expect(v.cosine(0, 5)).toBeCloseTo(-1, 5);
    expect(v.cosine(3, 4)).toBeCloseTo(0.6, 2);
  });

  it('refuses a file whose header does not match its bytes', () => {
    const good = WordVectors.encode(WORDS, ROWS);
    expect(() => WordVectors.parse(good.subarray(0, good.length - 1))).toThrow(/header .* says/);
    const badMagic = good.slice();
    badMagic[0] ^= 1;
    expect(() => WordVectors.parse(badMagic)).toThrow(/magic/);
    const hugeCount = good.slice();
    new DataView(hugeCount.buffer).setUint32(8, 2_000_000, true);
    expect(() => WordVectors.parse(hugeCount)).toThrow(/words field 2000000/);
    const fewerWords = good.slice();
    new DataView(fewerWords.buffer).setUint32(8, 5, true);
    expect(() => WordVectors.parse(fewerWords)).toThrow(/says/);
  });
});

describe('related words of a question', () => {
  const vectors = WordVectors.parse(WordVectors.encode(WORDS, ROWS));
  const df: Record<string, number> = { slow: 2, sluggish: 0, table: 5, rows: 4, fast: 1 };
  const library = new LibraryWordVectors(
    vectors,
    (t) => df[t] ?? 0,
    () => undefined,
  );

  it('gives an absent word the library words nearest to it, above the cosine', () => {
    const related = library.related(['table', 'crawls'], { minCosine: 0.9, perWord: 3, maxDf: 0 });
    // "sluggish" is as near but the library never uses it; "table" is used, so it is not expanded.
    expect(related.map((r) => [r.of, r.term])).toEqual([['crawls', 'slow']]);
    expect(related[0].cosine).toBeGreaterThan(0.9);
  });

  it('expands a used word only up to maxDf, and never to a word the question already has', () => {
    expect(library.related(['rows'], { minCosine: 0.5, perWord: 3, maxDf: 3 })).toEqual([]);
    const rows = library.related(['rows'], { minCosine: 0.5, perWord: 3, maxDf: 4 });
    expect(rows.map((r) => r.term)).toEqual(['table']);
    expect(library.related(['rows', 'table'], { minCosine: 0.5, perWord: 3, maxDf: 5 })).toEqual([]);
  });
});

/** One chunk per text, one sentence per chunk. */
function corpus(texts: string[]): RetrievalInput {
  return {
    chunks: texts.map((text, d) => ({
      id: `d${d}#0000#0000`,
      docId: `d${d}`,
      text,
      tokens: text.split(' ').length,
      start: 0,
    })),
    sentences: texts.map((text, d) => ({
      chunkId: `d${d}#0000#0000`,
      index: 0,
      start: 0,
      end: text.length,
      text,
    })),
  };
}

describe('related words in the default mode', () => {
  const texts = [
    'Rendering a long list with many cells in a table is slow without virtual scrolling of the whole list.',
    'Table sorting: a table sorts by column header.',
    'Table keys: each table row gets a key.',
  ];
  const vectors = WordVectors.parse(WordVectors.encode(WORDS, ROWS));

  it('ranks the passage with the related word first once relatedWeight is on', () => {
    const engine = RetrievalEngine.build(corpus(texts), toyAnalyzer, { maxDfFraction: 1 });
    engine.useWordVectors(vectors);
    const q = { text: 'my table crawls' };
    // Without the related word the passages that name "table" twice, and are shorter, come first.
    const before = engine.withParams({}).search(q, 'ppr', 1000);
    expect(before[0].docId).not.toBe('d0');
    const after = engine.withParams({ relatedWeight: 1, relatedCosine: 0.9 }).search(q, 'ppr', 1000);
    expect(after[0].docId).toBe('d0');
  });
});

describe('word-vector edges between concepts', () => {
  // Concepts (sorted ids): crawls 0, rows 1, slow 2, table 3; every one in two chunks but "crawls".
  const table: ConceptTable = {
    chunkCount: 3,
    terms: ['crawls', 'rows', 'slow', 'table'],
    idf: new Float32Array([1, 1, 1, 1]),
    conceptChunkOffsets: Uint32Array.from([0, 2, 4, 6, 8]),
    conceptChunks: Uint32Array.from([0, 1, 0, 2, 1, 2, 0, 1]),
    chunkConceptOffsets: Uint32Array.from([0, 3, 6, 8]),
    chunkConcepts: Uint32Array.from([0, 1, 3, 0, 2, 3, 1, 2]),
    chunkConceptWeights: new Float32Array(8).fill(1),
  };
  const vectors = WordVectors.parse(WordVectors.encode(WORDS, ROWS));

  it('links concepts whose vectors are close, each keeping its best neighbours', () => {
    const e = wordEdges(table, vectors, { concepts: 10, minCosine: 0.5, perConcept: 2 });
    // crawls–slow ≈ 0.97 and rows–table 0.6; crawls–rows and the rest are below 0.5.
    expect([...e.from]).toEqual([0, 1]);
    expect([...e.to]).toEqual([2, 3]);
    expect(e.cosine[0]).toBeCloseTo(0.97, 2);
    expect(e.cosine[1]).toBeCloseTo(0.6, 2);
    expect(wordEdges(table, vectors, { concepts: 10, minCosine: 0.99, perConcept: 2 }).from.length).toBe(0);
  });

  it('adds the edges to the walk graph, summing where the concepts already co-occur', () => {
    // A co-occurrence graph with the one edge rows–table (Dice 0.5).
    const graph = {
      nodeCount: 4,
      offsets: Uint32Array.from([0, 0, 1, 1, 2]),
      targets: Uint32Array.from([3, 1]),
      co: Uint32Array.from([1, 1]),
      weights: Float32Array.from([0.5, 0.5]),
    };
    const edges = {
      from: Uint32Array.from([0, 1]),
      to: Uint32Array.from([2, 3]),
      cosine: Float32Array.from([0.9, 0.6]),
    };
    const g = withWordEdges(graph, edges, 0.5);
    expect([...g.offsets]).toEqual([0, 1, 2, 3, 4]);
    expect([...g.targets]).toEqual([2, 3, 0, 1]);
    expect([...g.weights].map((w) => +w.toFixed(4))).toEqual([0.45, 0.8, 0.45, 0.8]);
    expect(withWordEdges(graph, edges, 0)).toBe(graph);
  });
});

describe('word-vector edges in the default mode', () => {
  // "crawls" and "slow" never share a passage: only a word-vector edge lets the walk reach "slow".
  const texts = ['slow render', 'slow paint', 'crawls page', 'crawls table'];
  const vectors = WordVectors.parse(WordVectors.encode(WORDS, ROWS));

  it('reaches the passages of a close concept only with wordEdgeWeight on', () => {
    const engine = RetrievalEngine.build(corpus(texts), toyAnalyzer, { maxDfFraction: 1 });
    engine.useWordVectors(vectors);
    const docs = (weight: number): string[] =>
      engine
        .withParams({ wordEdgeWeight: weight, wordEdgeCosine: 0.9 })
        .search({ text: 'crawls' }, 'ppr', 1000)
        .map((r) => r.docId);
    expect(docs(0).sort()).toEqual(['d2', 'd3']);
    const withEdges = docs(1);
    expect(withEdges.slice(0, 2).sort()).toEqual(['d2', 'd3']);
    expect(withEdges.slice(2).sort()).toEqual(['d0', 'd1']);
  });
});
