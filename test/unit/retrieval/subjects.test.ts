// The Graph view's top list names a library's subjects: a word every document uses about as often as chance puts it
// there is not one however central its PageRank, a word gathered in the documents about it is, and two forms of one
// word are listed once (src/core/retrieval/subjects.ts).
import { describe, expect, it } from 'vitest';
import type { ConceptGraphIndex } from '../../../src/core/graph/index.ts';
import { conceptMap } from '../../../src/core/retrieval/conceptMap.ts';
import { stemKey, subjectScores, type SubjectSource } from '../../../src/core/retrieval/subjects.ts';
import { createTermAnalyzer } from '../../../src/core/text/analyzer.ts';

const analyzer = createTermAnalyzer();
/** Ten documents of one chunk each, 100 words long. */
const DOCUMENTS = 10;

/**
 * A library whose concepts are `terms`, with the given PageRank, and whose word index holds each term's count in
 * each document (`counts[term][d]`); a stem's postings are the sum of its forms', as the analyser indexes them.
 */
function library(concepts: Array<{ term: string; rank: number; counts?: number[] }>): {
  source: SubjectSource;
  graph: ConceptGraphIndex;
} {
  const graph = {
    table: {
      terms: concepts.map((c) => c.term),
      conceptChunkOffsets: new Uint32Array(concepts.length + 1),
    },
    conceptRank: Float64Array.from(concepts, (c) => c.rank),
    graph: {
      offsets: new Uint32Array(concepts.length + 1),
      targets: new Uint32Array(0),
      weights: new Float32Array(0),
    },
  } as unknown as ConceptGraphIndex;
  const postings = new Map<string, number[]>();
  for (const { term, counts } of concepts) {
    if (!counts) continue;
    for (const t of analyzer.terms(term)) {
      const sum = postings.get(t) ?? new Array<number>(DOCUMENTS).fill(0);
      counts.forEach((n, d) => (sum[d] += n));
      postings.set(t, sum);
    }
  }
  const words: SubjectSource['words'] = {
    lengthOf: () => 100,
    postingsOf: (term) => {
      const counts = postings.get(term);
      if (!counts) return undefined;
      const chunks = counts.flatMap((n, d) => (n > 0 ? [d] : []));
      return { chunks: Uint32Array.from(chunks), freqs: Uint16Array.from(chunks, (d) => counts[d]) };
    },
  };
  const documentOf = Uint32Array.from({ length: DOCUMENTS }, (_, d) => d);
  return { source: { graph, words, documentOf, terms: (text) => analyzer.terms(text) }, graph };
}

const everywhere = (n: number) => new Array<number>(DOCUMENTS).fill(n);
const gathered = (n: number) => [n, n, n, 0, 0, 0, 0, 0, 0, 0];

describe('subjectScores', () => {
  it('drops a word spread over every document and keeps one gathered in a few, whatever their PageRank', () => {
    const { source, graph } = library([
      { term: 'returns', rank: 0.5, counts: everywhere(3) },
      { term: 'closure', rank: 0.2, counts: gathered(10) },
    ]);
    const scores = subjectScores(source, 10);
    expect(scores[0]).toBe(0);
    // 30 occurrences would reach ≈ 9.5 documents by chance; they reach 3: log₂(9.5 / 3) > 1 bit keeps it whole.
    expect(scores[1]).toBeCloseTo(0.2);
    expect(conceptMap(graph, { limit: 1, edges: 0 }, (l) => subjectScores(source, l)).nodes[0].term).toBe(
      'closure',
    );
    // Without the subjects the PageRank alone lists the generic word first.
    expect(conceptMap(graph, { limit: 1, edges: 0 }).nodes[0].term).toBe('returns');
  });

  it('weighs a word between the two by its residual IDF in bits', () => {
    // 20 occurrences over 5 documents, 4 each: chance would reach 10 · (1 − e^−2) ≈ 8.65, so log₂(8.65 / 5) ≈ 0.79.
    const { source } = library([{ term: 'lifetime', rank: 1, counts: [4, 4, 4, 4, 4, 0, 0, 0, 0, 0] }]);
    expect(subjectScores(source, 10)[0]).toBeCloseTo(Math.log2((10 * (1 - Math.exp(-2))) / 5), 5);
  });

  it('lists two forms of a word once, as the form of highest PageRank', () => {
    const { source, graph } = library([
      { term: 'closure', rank: 0.2, counts: gathered(5) },
      { term: 'closures', rank: 0.3, counts: gathered(5) },
      { term: 'trait', rank: 0.1, counts: gathered(5) },
    ]);
    const scores = subjectScores(source, 10);
    expect(scores[0]).toBe(0);
    expect(scores[1]).toBeGreaterThan(0);
    const listed = conceptMap(graph, { limit: 2, edges: 0 }, (l) => subjectScores(source, l)).nodes;
    expect(listed.map((n) => n.term)).toEqual(['closures', 'trait']);
  });

  it('keeps a phrase whole, and fills the list by PageRank when too few words are subjects', () => {
    const { source, graph } = library([
      { term: 'standard library', rank: 0.1, counts: everywhere(2) },
      { term: 'data', rank: 0.4, counts: everywhere(2) },
      { term: 'values', rank: 0.3, counts: everywhere(2) },
    ]);
    expect(subjectScores(source, 10)[0]).toBeCloseTo(0.1);
    const listed = conceptMap(graph, { limit: 3, edges: 0 }, (l) => subjectScores(source, l)).nodes;
    expect(listed.map((n) => n.term)).toEqual(['standard library', 'data', 'values']);
  });
});

describe('stemKey', () => {
  it('replaces each word by its stem where the analyser gives one', () => {
    expect(stemKey(analyzer.terms('closures'))).toBe(stemKey(analyzer.terms('closure')));
    expect(stemKey(analyzer.terms('standard libraries'))).toBe(stemKey(analyzer.terms('standard library')));
    expect(stemKey(['defineprops'])).toBe('defineprops');
  });
});
