import { describe, expect, it } from 'vitest';
import { deserializeGraph, serializeGraph } from '../../../src/core/graph/conceptGraph.ts';
import { RetrievalEngine, type RetrievalInput } from '../../../src/core/retrieval/engine.ts';
import { DEFAULTS, parseParamOverride, resolveParams } from '../../../src/core/retrieval/params.ts';
import { parseMode } from '../../../src/core/retrieval/types.ts';
import { toyAnalyzer } from './toyAnalyzer.ts';

const TEXTS = [
  'Lothair II was a king. His mother was Ermengarde of Tours.',
  'Ermengarde of Tours died on 20 March 851. She was a Frankish queen.',
  'Port of Spain is the capital of Trinidad.',
  'The French court hunted deer in France.',
  'Tours is a city in France on the Loire.',
];

/** One document per text, one chunk per document, sentences split after ". ". */
function corpus(texts: string[], order?: number[]): RetrievalInput {
  const chunks: RetrievalInput['chunks'][number][] = [];
  const sentences: RetrievalInput['sentences'][number][] = [];
  texts.forEach((text, d) => {
    const chunkId = `d${d}#0000#0000`;
    chunks.push({ id: chunkId, docId: `d${d}`, text, tokens: text.split(' ').length, start: 0 });
    let start = 0;
    text.split(/(?<=\.) /).forEach((s, index) => {
      sentences.push({ chunkId, index, start, end: start + s.length, text: s });
      start += s.length + 1;
    });
  });
  if (!order) return { chunks, sentences };
  return { chunks: order.map((i) => chunks[i]), sentences: [...sentences].reverse() };
}

const LEXICAL = { maxDfFraction: 1 };

describe('RetrievalEngine, lexical layer only', () => {
  const engine = RetrievalEngine.build(corpus(TEXTS), toyAnalyzer, LEXICAL);

  it('ppr reaches the second hop that bm25 cannot find', () => {
    const q = { text: "When did Lothair II's mother die?" };
    const bm25 = engine.search(q, 'bm25', 1000).map((r) => r.docId);
    expect(bm25).toEqual(['d0']);
    const ppr = engine.search(q, 'ppr', 1000);
    expect(ppr.slice(0, 2).map((r) => r.docId)).toEqual(['d0', 'd1']);
    expect(ppr[0].provenance.hop).toBe(0);
    expect(ppr[1].provenance.hop).toBe(1);
    expect(ppr[1].provenance.concepts?.some((c) => c.includes('ermengarde') || c === 'tours')).toBe(true);
    expect(ppr[0].score).toBeGreaterThan(ppr[1].score);
  });

  it('matches a multi-word concept from question n-grams whatever the casing', () => {
    const res = engine.search({ text: 'what is port of spain the capital of' }, 'ppr', 1000);
    expect(res[0].docId).toBe('d2');
  });

  it('concept mode walks the graph with BFS and records the hop', () => {
    const q = { text: 'Lothair' };
    const two = engine.search(q, 'concept', 1000);
    const hopOf = (doc: string): number | undefined => two.find((r) => r.docId === doc)?.provenance.hop;
    expect(two[0].docId).toBe('d0');
    expect(hopOf('d0')).toBe(0);
    expect(hopOf('d1')).toBe(1); // via ermengarde / tours
    expect(hopOf('d4')).toBe(1); // via tours
    expect(hopOf('d3')).toBe(2); // lothair → tours → france
    expect(hopOf('d2')).toBeUndefined(); // not connected
    const one = RetrievalEngine.build(corpus(TEXTS), toyAnalyzer, { ...LEXICAL, conceptHops: 1 });
    expect(one.search(q, 'concept', 1000).map((r) => r.docId)).not.toContain('d3');
  });

  it('cuts to the token budget and fuses modes', () => {
    const q = { text: 'Ermengarde of Tours France' };
    const all = engine.search(q, 'rrf:ppr+bm25', 1000);
    expect(all.length).toBeGreaterThan(2);
    expect(all[0].provenance.via).toMatch(/ppr#\d.*bm25#\d|bm25#\d.*ppr#\d/);
    const budget = all[0].tokens + all[1].tokens;
    expect(engine.search(q, 'rrf:ppr+bm25', budget).map((r) => r.chunkId)).toEqual(
      all.slice(0, 2).map((r) => r.chunkId),
    );
  });

  it('highlights the sentences sharing the most question terms, with offsets into the chunk text', () => {
    const [top] = engine.search({ text: 'Who was the mother of Lothair?' }, 'bm25', 1000);
    expect(top.docId).toBe('d0');
    const s = top.bestSentences[0];
    // "His mother was Ermengarde of Tours." shares 1 of 2 terms; "Lothair II was a king." also 1 of 2: tie → first.
    expect(top.text.slice(s.start, s.end)).toBe('Lothair II was a king.');
    expect(s.score).toBeCloseTo(0.5, 6);
    expect(top.bestSentences).toHaveLength(2);
  });

  it('refuses dense without vectors and unknown modes', () => {
    expect(() => engine.search({ text: 'x' }, 'dense', 10)).toThrow(/dense mode needs/);
    expect(() => engine.search({ text: 'x' }, 'magic', 10)).toThrow(/unknown mode "magic"/);
  });

  it('is deterministic: the same chunks in another order give the same graph', () => {
    const other = RetrievalEngine.build(corpus(TEXTS, [4, 2, 0, 3, 1]), toyAnalyzer, LEXICAL);
    const a = engine.exportGraph();
    const b = other.exportGraph();
    expect(b.terms).toEqual(a.terms);
    expect(Array.from(b.edgeTargets)).toEqual(Array.from(a.edgeTargets));
    expect(Array.from(b.edgeWeights)).toEqual(Array.from(a.edgeWeights));
  });
});

describe('RetrievalEngine with vectors', () => {
  // 3-d sentence vectors: sentences about people → x, places → y, the Frankish queen sentence → z.
  const V: Record<string, number[]> = {
    'Lothair II was a king.': [1, 0, 0],
    'His mother was Ermengarde of Tours.': [0.8, 0.6, 0],
    'Ermengarde of Tours died on 20 March 851.': [0.6, 0.8, 0],
    'She was a Frankish queen.': [0, 0, 1],
    'Port of Spain is the capital of Trinidad.': [0, 1, 0],
    'The French court hunted deer in France.': [0, 0.6, 0.8],
    'Tours is a city in France on the Loire.': [0, 0.8, 0.6],
  };
  const input = corpus(TEXTS);
  const vectors = Float32Array.from(input.sentences.flatMap((s) => V[s.text]));
  const engine = RetrievalEngine.build(
    { ...input, sentenceVectors: vectors, dimension: 3 },
    toyAnalyzer,
    LEXICAL,
  );

  it('dense ranks chunks by the cosine of their mean sentence vector', () => {
    const res = engine.search({ text: 'queen', vector: Float32Array.from([0, 0, 1]) }, 'dense', 1000);
    // Chunk means (normalized): d1 = (0.6,0.8,1)/√2 → z 0.707; d3 = (0,0.6,0.8) → z 0.8; d4 z 0.6.
    expect(res.slice(0, 3).map((r) => r.docId)).toEqual(['d3', 'd1', 'd4']);
    expect(res[0].score).toBeCloseTo(0.8, 5);
    // Best sentence by cosine: in d1 the Frankish queen sentence.
    const d1 = res[1];
    expect(d1.text.slice(d1.bestSentences[0].start, d1.bestSentences[0].end)).toBe(
      'She was a Frankish queen.',
    );
    // Its score: cosine 1 plus the share of the question's words it holds ("queen": all of them), 1.
    expect(d1.bestSentences[0].score).toBeCloseTo(2, 5);
  });

  it('θsem removes edges between dissimilar concepts', () => {
    const loose = engine.stats();
    const strict = RetrievalEngine.build({ ...input, sentenceVectors: vectors, dimension: 3 }, toyAnalyzer, {
      ...LEXICAL,
      thetaSem: 0.99,
    }).stats();
    expect(loose.semantic).toBe(true);
    expect(strict.cooccurrenceEdges).toBe(loose.cooccurrenceEdges);
    expect(strict.edges).toBeLessThan(loose.edges);
  });

  it('withParams re-filters θsem from stored cosines and refuses build-time parameters', () => {
    const strict = engine.withParams({ thetaSem: 0.99 });
    expect(strict.stats().edges).toBeLessThan(engine.stats().edges);
    expect(strict.stats().cooccurrenceEdges).toBe(engine.stats().cooccurrenceEdges);
    expect(strict.hasVectors).toBe(true);
    expect(engine.withParams({ thetaSem: engine.params.thetaSem }).stats()).toEqual(engine.stats());
    expect(() => engine.withParams({ phrases: false })).toThrow(/"phrases" needs RetrievalEngine.build/);
  });

  it('mixes embedding seeds into ppr when the question names no concept', () => {
    const res = engine.search({ text: 'zzz', vector: Float32Array.from([0, 1, 0]) }, 'ppr', 1000);
    expect(res.length).toBeGreaterThan(0);
    expect(engine.search({ text: 'zzz' }, 'ppr', 1000)).toEqual([]);
  });

  it('round-trips the graph through serialize/deserialize and rebuilds an engine from it', () => {
    const stored = engine.exportGraph();
    const again = serializeGraph(deserializeGraph(structuredClone(stored)));
    expect(Array.from(again.edgeTargets)).toEqual(Array.from(stored.edgeTargets));
    expect(Array.from(again.semantic!.conceptVectors)).toEqual(Array.from(stored.semantic!.conceptVectors));
    const restored = RetrievalEngine.fromGraph(
      { ...input, sentenceVectors: vectors, dimension: 3 },
      toyAnalyzer,
      stored,
      LEXICAL,
    );
    const q = { text: "Lothair II's mother", vector: Float32Array.from([1, 0, 0]) };
    expect(restored.search(q, 'ppr', 1000)).toEqual(engine.search(q, 'ppr', 1000));
  });

  it('refuses a corrupted or mismatched stored graph', () => {
    const stored = engine.exportGraph();
    expect(() => deserializeGraph({ ...stored, version: 2 as 1 })).toThrow(/unknown version 2/);
    expect(() => deserializeGraph({ ...stored, edgeTargets: stored.edgeTargets.map(() => 999) })).toThrow(
      /outside the concepts/,
    );
    expect(() => deserializeGraph({ ...stored, idf: stored.idf.subarray(1) })).toThrow(/idf/);
    expect(() => RetrievalEngine.fromGraph(corpus(TEXTS.slice(0, 4)), toyAnalyzer, stored, LEXICAL)).toThrow(
      /different set of chunks/,
    );
  });
});

describe('params and modes', () => {
  it('resolves overrides and refuses unknown keys or wrong types', () => {
    expect(resolveParams({ damping: 0.7 }).damping).toBe(0.7);
    expect(resolveParams().thetaCo).toBe(DEFAULTS.thetaCo);
    expect(() => resolveParams({ dampnig: 0.7 } as never)).toThrow(/unknown parameter "dampnig"/);
    expect(() => resolveParams({ damping: 'x' })).toThrow(/must be a number/);
    expect(parseParamOverride('phrases=false')).toEqual(['phrases', false]);
    expect(parseParamOverride('thetaSem=0.65')).toEqual(['thetaSem', 0.65]);
    expect(() => parseParamOverride('thetaSem=')).toThrow(/must be a number/);
  });
  it('parses fused modes', () => {
    expect(parseMode('rrf:ppr+bm25')).toEqual({ fuse: ['ppr', 'bm25'] });
    expect(() => parseMode('rrf:ppr+kg')).toThrow(/unknown mode/);
  });
});
