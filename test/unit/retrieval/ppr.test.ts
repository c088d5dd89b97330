import { describe, expect, it } from 'vitest';
import { conceptIndex } from '../../../src/core/graph/concepts.ts';
import { buildLexicalGraph } from '../../../src/core/graph/conceptGraph.ts';
import { PersonalizedPageRank } from '../../../src/core/graph/pagerank.ts';
import { resolveParams, type RetrievalParams } from '../../../src/core/retrieval/params.ts';
import { conceptChunkShares, TableAccess } from '../../../src/core/retrieval/conceptAccess.ts';
import {
  lexicalEvidence,
  pprSearch,
  pprSeeds,
  type PprContext,
} from '../../../src/core/retrieval/pprSearch.ts';

// Three chunks; "x" occurs 3 times in chunk 0 and once in chunk 1; N = 3.
const TERMS = [
  ['x', 'x', 'x', 'y'],
  ['x', 'z'],
  ['w', 'terry richardson', 'terry', 'richardson'],
];
const graph = buildLexicalGraph(['c0', 'c1', 'c2'], TERMS, {
  conceptsPerChunk: 0,
  maxDfFraction: 1,
  thetaCo: 1,
  thetaSem: 0,
});

/** The concept table's parts of a PprContext: the shares and the access the walk reads. */
function tableParts(g: typeof graph, params: RetrievalParams): Pick<PprContext, 'shares' | 'concepts'> {
  const shares = conceptChunkShares(g.table, params.tfSpread, params.chunkScorePower);
  return { shares, concepts: new TableAccess(g.table, shares) };
}

function context(overrides: Partial<RetrievalParams>): PprContext {
  const params = resolveParams({ maxDfFraction: 1, ...overrides });
  return {
    graph,
    conceptIds: conceptIndex(graph.table),
    walker: new PersonalizedPageRank(graph.graph),
    chunkScores: new Float64Array(3),
    params,
    ...tableParts(graph, params),
  };
}

describe('conceptChunkShares', () => {
  const x = graph.table.terms.indexOf('x');
  const at = (shares: Float32Array): number[] =>
    Array.from(shares.subarray(graph.table.conceptChunkOffsets[x], graph.table.conceptChunkOffsets[x + 1]));
  it('splits evenly at tfSpread 0 (PPR(c)/|T(c)|) and by term frequency at 1', () => {
    expect(at(conceptChunkShares(graph.table, 0, 1))).toEqual([0.5, 0.5]);
    expect(at(conceptChunkShares(graph.table, 1, 1))).toEqual([0.75, 0.25]);
    // tf² = 9 and 1 → 0.9 / 0.1.
    const sq = at(conceptChunkShares(graph.table, 2, 1));
    expect(sq[0]).toBeCloseTo(0.9, 6);
    expect(sq[1]).toBeCloseTo(0.1, 6);
  });
  it('chunkScorePower p divides by |T(c)|^p', () => {
    expect(at(conceptChunkShares(graph.table, 0, 2))).toEqual([0.25, 0.25]);
    expect(at(conceptChunkShares(graph.table, 0, 0))).toEqual([1, 1]);
  });
});

describe('pprSeeds', () => {
  const idf = (t: string): number => graph.table.idf[graph.table.terms.indexOf(t)];
  it('weights lexical seeds by IDF^p and normalizes them to sum 1', () => {
    const seeds = pprSeeds(context({ seedIdfPower: 1 }), ['x', 'w', 'unknown']);
    const wx = idf('x'); // ln(3/2)
    const ww = idf('w'); // ln 3
    expect(seeds.get(graph.table.terms.indexOf('x'))).toBeCloseTo(wx / (wx + ww), 6);
    expect(seeds.get(graph.table.terms.indexOf('w'))).toBeCloseTo(ww / (wx + ww), 6);
    const sharp = pprSeeds(context({ seedIdfPower: 3 }), ['x', 'w']);
    expect(sharp.get(graph.table.terms.indexOf('w'))).toBeCloseTo(ww ** 3 / (wx ** 3 + ww ** 3), 6);
  });
  it('lets a matched phrase replace its single words when phraseSubsumes is on', () => {
    const q = ['terry richardson', 'terry', 'richardson'];
    expect(pprSeeds(context({ phraseSubsumes: false }), q).size).toBe(3);
    const only = pprSeeds(context({ phraseSubsumes: true }), q);
    expect([...only.keys()].map((c) => graph.table.terms[c])).toEqual(['terry richardson']);
  });
});

describe('pprSearch', () => {
  it('ranks the chunk that mentions the seed most first when shares follow tf', () => {
    const even = pprSearch(context({ tfSpread: 0, chunkLengthPower: 0 }), ['x'], undefined, 3);
    const byTf = pprSearch(context({ tfSpread: 1, chunkLengthPower: 0 }), ['x'], undefined, 3);
    expect(byTf[0].chunk).toBe(0);
    expect(byTf[0].score).toBeGreaterThan(byTf[1].score);
    // Evenly shared, chunk 0 still leads through y but by less.
    expect(even[0].score / even[1].score).toBeLessThan(byTf[0].score / byTf[1].score);
    expect(pprSearch(context({}), ['nothing'], undefined, 3)).toEqual([]);
  });
});

describe('pprSearch graph feedback', () => {
  // Chunk 0 names the question's concept q and the bridge r; chunk 1 holds r; chunk 2 holds noise n shared with 0.
  const g = buildLexicalGraph(
    ['a', 'b', 'c'],
    [
      ['q', 'r', 'n'],
      ['r', 'm'],
      ['n', 'o'],
    ],
    {
      conceptsPerChunk: 0,
      maxDfFraction: 1,
      thetaCo: 1,
      thetaSem: 0,
    },
  );
  const ctx = (overrides: Partial<RetrievalParams>): PprContext => {
    const params = resolveParams({ maxDfFraction: 1, chunkLengthPower: 0, tfSpread: 0, ...overrides });
    return {
      graph: g,
      conceptIds: conceptIndex(g.table),
      walker: new PersonalizedPageRank(g.graph),
      chunkScores: new Float64Array(3),
      params,
      ...tableParts(g, params),
    };
  };
  it('re-seeds from the best chunk so its shared concepts pull their other chunks up', () => {
    const share = (res: Array<{ chunk: number; score: number }>, k: number): number =>
      res.find((r) => r.chunk === k)!.score / res.reduce((a, r) => a + r.score, 0);
    const plain = pprSearch(ctx({ feedbackChunks: 0 }), ['q'], undefined, 3);
    const fed = pprSearch(ctx({ feedbackChunks: 1, feedbackShare: 0.5 }), ['q'], undefined, 3);
    expect(plain[0].chunk).toBe(0);
    expect(fed[0].chunk).toBe(0);
    expect(share(fed, 1)).toBeGreaterThan(share(plain, 1));
    // Provenance still counts hops from the question's own concepts: chunk 1 was reached by the walk.
    expect(fed.find((r) => r.chunk === 1)!.hop).toBe(1);
  });
});

describe('lexicalEvidence', () => {
  const id = (t: string): number => graph.table.terms.indexOf(t);
  it('scores BM25 over the question concepts, chunk length = its concept count, best chunk = 1', () => {
    // "x": df 2 of N 3; chunk 0 has tf 3 and 2 concepts, chunk 1 tf 1 and 2 concepts; mean length 8/3.
    // k1 1.2, b 0.75: length factor 1.2·(0.25 + 0.75·2/(8/3)) = 0.975; the shared IDF cancels in the ratio.
    const ev = lexicalEvidence(context({}), [id('x')]);
    expect([...ev.keys()].sort()).toEqual([0, 1]);
    expect(ev.get(0)).toBe(1);
    expect(ev.get(1)).toBeCloseTo(2.2 / 1.975 / (6.6 / 3.975), 6); // 0.670886
  });
  it('matches a question phrase as one concept and keeps only the best `limit` chunks', () => {
    expect([...lexicalEvidence(context({}), [id('terry richardson')])]).toEqual([[2, 1]]);
    expect([...lexicalEvidence(context({}), [id('x')], 1)]).toEqual([[0, 1]]);
    expect(lexicalEvidence(context({}), []).size).toBe(0);
  });
});

describe('pprSearch lexical fusion', () => {
  const base = { feedbackChunks: 0, chunkLengthPower: 0, lexicalTopChunks: 0 };
  it("adds weight × lexical evidence × the walk's best chunk score to each chunk", () => {
    const plain = pprSearch(context({ ...base, lexicalChunkWeight: 0 }), ['x'], undefined, 3);
    const fused = pprSearch(context({ ...base, lexicalChunkWeight: 0.5 }), ['x'], undefined, 3);
    const top = plain[0].score;
    const score = (res: typeof plain, k: number): number => res.find((r) => r.chunk === k)?.score ?? 0;
    expect(score(fused, 0)).toBeCloseTo(score(plain, 0) + 0.5 * top * 1, 9);
    expect(score(fused, 1)).toBeCloseTo(score(plain, 1) + 0.5 * top * (2.2 / 1.975 / (6.6 / 3.975)), 9);
    // lexicalTopChunks 1: only chunk 0 gains.
    const one = pprSearch(
      context({ ...base, lexicalChunkWeight: 0.5, lexicalTopChunks: 1 }),
      ['x'],
      undefined,
      3,
    );
    expect(score(one, 1)).toBeCloseTo(score(plain, 1), 9);
  });

  it('lets the lexically best chunk choose the feedback concepts (lexicalFeedbackWeight)', () => {
    // The walk from q favours chunk 0 (more concepts, evenly shared mass); BM25 favours chunk 1 (q three times in a
    // short chunk). Feedback from chunk 0 pulls chunk 3 (via n, n2); feedback from chunk 1 pulls chunk 2 (via r).
    const g = buildLexicalGraph(
      ['a', 'b', 'c', 'd'],
      [
        ['q', 'n', 'n2'],
        ['q', 'q', 'q', 'r'],
        ['r', 'm'],
        ['n', 'n2', 'o'],
      ],
      { conceptsPerChunk: 0, maxDfFraction: 1, thetaCo: 1, thetaSem: 0 },
    );
    const run = (lexicalFeedbackWeight: number): Array<{ chunk: number; score: number }> => {
      const params = resolveParams({
        maxDfFraction: 1,
        chunkLengthPower: 0,
        tfSpread: 0,
        feedbackChunks: 1,
        feedbackShare: 0.5,
        lexicalChunkWeight: 0,
        lexicalTopChunks: 0,
        lexicalFeedbackWeight,
      });
      const ctx: PprContext = {
        graph: g,
        conceptIds: conceptIndex(g.table),
        walker: new PersonalizedPageRank(g.graph),
        chunkScores: new Float64Array(4),
        params,
        ...tableParts(g, params),
      };
      return pprSearch(ctx, ['q'], undefined, 4);
    };
    const score = (res: Array<{ chunk: number; score: number }>, k: number): number =>
      res.find((r) => r.chunk === k)?.score ?? 0;
    const walkOnly = run(0);
    const lexical = run(10);
    expect(walkOnly[0].chunk).toBe(0);
    expect(score(walkOnly, 3)).toBeGreaterThan(score(walkOnly, 2));
    expect(score(lexical, 2)).toBeGreaterThan(score(lexical, 3));
  });
});
