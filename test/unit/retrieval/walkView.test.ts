import { describe, expect, it } from 'vitest';
import { RetrievalEngine, type RetrievalInput } from '../../../src/core/retrieval/engine.ts';
import { conceptMap } from '../../../src/core/retrieval/conceptMap.ts';
import { walkView } from '../../../src/core/retrieval/walkView.ts';
import { toyAnalyzer } from './toyAnalyzer.ts';

/** One document per text, one chunk per document, one sentence per chunk; chunk ids sort in text order. */
function corpus(texts: string[]): RetrievalInput {
  return {
    chunks: texts.map((text, d) => ({ id: `d${d}#0`, docId: `d${d}`, text, tokens: 5, start: 0 })),
    sentences: texts.map((text, d) => ({ chunkId: `d${d}#0`, index: 0, start: 0, end: text.length, text })),
  };
}

// A path of concepts alpha – bravo – charlie – delta across three chunks, and a fourth chunk on its own.
// N = 4: df(alpha) = df(delta) = 1 → idf ln 4; df(bravo) = df(charlie) = 2 → idf ln 2; echo, foxtrot: ln 4.
const PATH = ['alpha bravo', 'bravo charlie', 'charlie delta', 'echo foxtrot'];

// One walk, no lexical evidence, even shares, no length normalization: a chunk's score is Σ PPR(c) / |T(c)|.
const PLAIN = {
  maxDfFraction: 1,
  conceptsPerChunk: 0,
  phrases: false,
  feedbackChunks: 0,
  lexicalChunkWeight: 0,
  lexicalFeedbackWeight: 0,
  lexicalAllTerms: false,
  tfSpread: 0,
  chunkScorePower: 1,
  chunkLengthPower: 0,
  seedIdfPower: 1,
  thetaCo: 1,
};

/**
 * Exact personalized PageRank by power iteration, x = (1 − d)·s + d·Wᵀ D⁻¹ x, on the path's Dice weights
 * (2·Co / (df u + df v)): alpha–bravo 2/3, bravo–charlie 1/2, charlie–delta 2/3. The engine's forward push
 * approximates it within its push epsilon.
 */
function exactPathPpr(seed: Record<string, number>, damping: number): Record<string, number> {
  const names = ['alpha', 'bravo', 'charlie', 'delta'];
  const w = [
    [0, 2 / 3, 0, 0],
    [2 / 3, 0, 1 / 2, 0],
    [0, 1 / 2, 0, 2 / 3],
    [0, 0, 2 / 3, 0],
  ];
  const deg = w.map((row) => row.reduce((a, b) => a + b, 0));
  const s = names.map((n) => seed[n] ?? 0);
  let x = [...s];
  for (let it = 0; it < 2000; it++) {
    x = names.map(
      (_, v) =>
        (1 - damping) * s[v] + damping * names.reduce((acc, _u, u) => acc + (x[u] * w[u][v]) / deg[u], 0),
    );
  }
  return Object.fromEntries(names.map((n, i) => [n, x[i]]));
}

describe('walkView on a path of concepts', () => {
  const engine = RetrievalEngine.build(corpus(PATH), toyAnalyzer, PLAIN);
  const damping = engine.params.damping;
  const terms = (ids: { concept: number }[]): string[] => ids.map((c) => engine.graph.table.terms[c.concept]);

  it('seeds are the question’s concepts, weighted by IDF and normalized', () => {
    const view = walkView(engine, { text: 'alpha and bravo' });
    // idf(alpha) = ln 4 = 2 ln 2, idf(bravo) = ln 2: weights 2/3 and 1/3.
    expect(terms(view.seeds)).toEqual(['alpha', 'bravo']);
    expect(view.seeds[0].weight).toBeCloseTo(2 / 3, 9);
    expect(view.seeds[1].weight).toBeCloseTo(1 / 3, 9);
    expect(view.seeds.every((s) => s.fromWords)).toBe(true);
    // The seeds are never listed again among the mass concepts.
    expect(terms(view.concepts)).not.toContain('alpha');
    expect(terms(view.concepts)).not.toContain('bravo');
  });

  it('mass concepts carry the walk’s PPR mass, heaviest first; unreachable concepts are never drawn', () => {
    const view = walkView(engine, { text: 'alpha' });
    const exact = exactPathPpr({ alpha: 1 }, damping);
    expect(terms(view.seeds)).toEqual(['alpha']);
    expect(terms(view.concepts)).toEqual(['bravo', 'charlie', 'delta']);
    for (const c of [...view.seeds, ...view.concepts]) expect(c.mass).toBeCloseTo(exact[c.term], 3);
    // echo / foxtrot share no chunk with the path: the walk never reaches them, nor their chunk d3.
    expect(view.chunks.map((c) => c.chunkId)).not.toContain('d3#0');
    expect(view.touched).toBe(4);
  });

  it('edges are the walk graph’s Dice weights among the drawn concepts', () => {
    const view = walkView(engine, { text: 'alpha' });
    const named = view.edges.map((e) => [
      engine.graph.table.terms[e.source],
      engine.graph.table.terms[e.target],
      e.weight,
    ]);
    expect(named).toHaveLength(3);
    const weight = (a: string, b: string): number =>
      named.find(([x, y]) => (x === a && y === b) || (x === b && y === a))?.[2] as number;
    expect(weight('alpha', 'bravo')).toBeCloseTo(2 / 3, 6);
    expect(weight('bravo', 'charlie')).toBeCloseTo(1 / 2, 6);
    expect(weight('charlie', 'delta')).toBeCloseTo(2 / 3, 6);
    // Heaviest first.
    expect(view.edges[2].weight).toBeCloseTo(1 / 2, 6);
  });

  it('the evidence is the ppr ranking, and each chunk’s walk score is the sum of its links (PPR(c) / |T(c)|)', () => {
    const q = { text: 'alpha' };
    const view = walkView(engine, q, { evidence: 3 });
    const ranked = engine.rank(q, 'ppr').slice(0, 3);
    const evidence = view.chunks.filter((c) => c.rank >= 0);
    expect(evidence.map((c) => c.chunk)).toEqual(ranked.map((c) => c.chunk));
    // d0 holds the seed: it is first; d2 holds only charlie and delta, the far end of the path: last.
    expect(evidence.map((c) => c.chunkId)).toEqual(['d0#0', 'd1#0', 'd2#0']);
    const exact = exactPathPpr({ alpha: 1 }, damping);
    // score(d0) = PPR(alpha)/1 + PPR(bravo)/2.
    expect(evidence[0].score).toBeCloseTo(exact.alpha + exact.bravo / 2, 3);
    for (const chunk of evidence) {
      const sum = view.links.filter((l) => l.chunk === chunk.chunk).reduce((a, l) => a + l.contribution, 0);
      expect(sum).toBeCloseTo(chunk.score, 9);
      expect(chunk.words).toBe(0);
    }
    const bravo = engine.graph.table.terms.indexOf('bravo');
    const d1 = view.chunks.find((c) => c.chunkId === 'd1#0')!.chunk;
    const link = view.links.find((l) => l.concept === bravo && l.chunk === d1)!;
    expect(link.contribution).toBeCloseTo(exact.bravo / 2, 3);
  });

  it('a question with no concept in the graph has no walk: words-only evidence, nothing else drawn', () => {
    const view = walkView(engine, { text: 'zulu' });
    expect(view.seeds).toEqual([]);
    expect(view.concepts).toEqual([]);
    expect(view.links).toEqual([]);
  });
});

describe('walkView caps', () => {
  // A star: every chunk names "hub" and two words of its own, so the walk from "hub" touches every concept.
  const texts = Array.from({ length: 30 }, (_, i) => `hub w${i}a w${i}b`);
  texts.push('other thing');
  const engine = RetrievalEngine.build(corpus(texts), toyAnalyzer, {
    maxDfFraction: 1,
    phrases: false,
    thetaCo: 1,
  });
  const caps = { seeds: 1, concepts: 8, evidence: 3, chunksPerConcept: 2, edges: 3 };

  it('draws at most the capped seeds, concepts (+ one bridge per evidence chunk), evidence and edges', () => {
    const view = walkView(engine, { text: 'hub w1a w2a w3a' }, caps);
    expect(view.touched).toBeGreaterThan(50);
    expect(view.seeds).toHaveLength(1);
    expect(view.concepts.length).toBeLessThanOrEqual(caps.concepts + caps.evidence);
    expect(view.edges.length).toBe(caps.edges);
    expect(view.chunks.filter((c) => c.rank >= 0)).toHaveLength(caps.evidence);
    // Listed chunks: at most chunksPerConcept per drawn concept beyond the evidence it holds.
    const drawn = view.seeds.length + view.concepts.length;
    expect(view.chunks.length).toBeLessThanOrEqual(caps.evidence + drawn * caps.chunksPerConcept);
  });

  it('every evidence chunk links to a drawn concept (a path back to the question)', () => {
    const view = walkView(engine, { text: 'hub w1a w2a w3a' }, caps);
    const drawn = new Set([...view.seeds, ...view.concepts].map((c) => c.concept));
    for (const chunk of view.chunks.filter((c) => c.rank >= 0)) {
      expect(view.links.some((l) => l.chunk === chunk.chunk && drawn.has(l.concept))).toBe(true);
    }
    for (const l of view.links) expect(drawn.has(l.concept)).toBe(true);
  });

  it('with the default ppr (feedback walk, lexical evidence) the evidence is still the ppr ranking', () => {
    const q = { text: 'hub w1a w2a w3a' };
    const view = walkView(engine, q, caps);
    expect(view.chunks.filter((c) => c.rank >= 0).map((c) => c.chunk)).toEqual(
      engine
        .rank(q, 'ppr')
        .slice(0, 3)
        .map((c) => c.chunk),
    );
    // The question names w1a, w2a, w3a: their chunks are the evidence, and the words added to their scores.
    expect(
      view.chunks
        .filter((c) => c.rank >= 0)
        .map((c) => c.chunkId)
        .sort(),
    ).toEqual(['d1#0', 'd2#0', 'd3#0']);
  });
});

describe('conceptMap (the library-wide view)', () => {
  const engine = RetrievalEngine.build(corpus(PATH), toyAnalyzer, PLAIN);
  const terms = engine.graph.table.terms;

  it('without a search: the top concepts by global PageRank, with the edges among them', () => {
    const map = conceptMap(engine.graph, { limit: 2 });
    // bravo and charlie are the path's two inner concepts: each has two neighbours, the highest PageRank.
    expect(map.nodes.map((n) => n.term).sort()).toEqual(['bravo', 'charlie']);
    expect(map.nodes.map((n) => n.chunks)).toEqual([2, 2]);
    expect(map.edges).toHaveLength(1);
    expect(map.edges[0].weight).toBeCloseTo(1 / 2, 6);
  });

  it('a search finds the concept and its neighbours; prefix matches count; no match draws nothing', () => {
    const map = conceptMap(engine.graph, { search: '  Charlie ' });
    expect(terms[map.focus!]).toBe('charlie');
    expect(map.nodes.map((n) => n.term)).toEqual(['charlie', 'delta', 'bravo']); // Dice 2/3 before 1/2
    expect(conceptMap(engine.graph, { search: 'foxt' }).nodes.map((n) => n.term)).toEqual([
      'foxtrot',
      'echo',
    ]);
    expect(conceptMap(engine.graph, { search: 'zulu' }).nodes).toEqual([]);
    expect(conceptMap(engine.graph, { search: 'charlie', limit: 2 }).nodes).toHaveLength(2);
  });
});

describe('conceptMap with a focus', () => {
  // N = 4: df(apple) = df(banana) = 3, df(cherry) = 2. Dice: apple–banana 2·2/6 = 2/3, cherry–apple and
  // cherry–banana 2·1/5 = 0.4.
  const engine = RetrievalEngine.build(
    corpus(['apple banana', 'apple banana', 'banana cherry', 'apple cherry']),
    toyAnalyzer,
    PLAIN,
  );
  const terms = engine.graph.table.terms;

  it('draws the focus’s own edges before heavier ones among its neighbours', () => {
    const map = conceptMap(engine.graph, { search: 'cherry', edges: 2 });
    expect(map.nodes.map((n) => n.term).sort()).toEqual(['apple', 'banana', 'cherry']);
    expect(map.edges.map((e) => [terms[e.source], terms[e.target]].sort().join('–')).sort()).toEqual([
      'apple–cherry',
      'banana–cherry',
    ]);
    for (const e of map.edges) expect(e.weight).toBeCloseTo(0.4, 6);
    // With room for a third, the neighbours' own edge comes too, heaviest first.
    const all = conceptMap(engine.graph, { search: 'cherry', edges: 3 });
    expect(all.edges[0].weight).toBeCloseTo(2 / 3, 6);
    expect(all.edges).toHaveLength(3);
  });
});
