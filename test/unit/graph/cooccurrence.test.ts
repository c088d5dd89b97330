import { describe, expect, it } from 'vitest';
import { extractConcepts } from '../../../src/core/graph/concepts.ts';
import {
  buildCooccurrenceGraph,
  filterEdges,
  findEdge,
  weightedDegreesFromTable,
  type ConceptGraph,
} from '../../../src/core/graph/cooccurrence.ts';
import { weightedDegrees } from '../../../src/core/graph/pagerank.ts';
import { fastEdgeCosines } from '../../../src/core/graph/semanticEdges.ts';
import { computeConceptVectors } from '../../../src/core/graph/conceptVectors.ts';

// Concepts a..e = ids 0..4. T(a)={0,1} T(b)={0,1,2} T(c)={0,2} T(d)={2,3} T(e)={3}.
const CHUNKS = [
  ['a', 'b', 'c'],
  ['a', 'b'],
  ['b', 'c', 'd'],
  ['d', 'e'],
];
const table = extractConcepts(CHUNKS, { conceptsPerChunk: 0, maxDfFraction: 1 });

function edges(g: ConceptGraph): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (let u = 0; u < g.nodeCount; u++) {
    for (let e = g.offsets[u]; e < g.offsets[u + 1]; e++) {
      const v = g.targets[e];
      out[`${table.terms[u]}-${table.terms[v]}`] = [g.co[e], Number(g.weights[e].toFixed(6))];
    }
  }
  return out;
}

describe('buildCooccurrenceGraph', () => {
  it('links every co-occurring pair at θco = 1 with Dice = 2·Co/(|T(wi)|+|T(wj)|), symmetric', () => {
    const e = edges(buildCooccurrenceGraph(table, 1));
    expect(e).toEqual({
      'a-b': [2, 0.8], // 2·2/(2+3)
      'a-c': [1, 0.5], // 2·1/(2+2)
      'b-a': [2, 0.8],
      'b-c': [2, 0.8],
      'b-d': [1, 0.4], // 2·1/(3+2)
      'c-a': [1, 0.5],
      'c-b': [2, 0.8],
      'c-d': [1, 0.5],
      'd-b': [1, 0.4],
      'd-c': [1, 0.5],
      'd-e': [1, 0.666667], // 2·1/(2+1)
      'e-d': [1, 0.666667],
    });
  });

  it('keeps edges with Co exactly θco and drops the rest', () => {
    const e = edges(buildCooccurrenceGraph(table, 2));
    expect(Object.keys(e).sort()).toEqual(['a-b', 'b-a', 'b-c', 'c-b']);
    expect(() => buildCooccurrenceGraph(table, 0)).toThrow(/θco/);
  });

  it('filters by cosine ≥ θsem, keeping an edge exactly at the threshold', () => {
    const g = buildCooccurrenceGraph(table, 2);
    // a=[1,0], b=[0.5, √0.75], c=[0,1] → cos(a,b)=0.5 exactly, cos(b,c)=√0.75≈0.866.
    const vectors = Float32Array.from([1, 0, 0.5, Math.sqrt(0.75), 0, 1, 1, 0, 1, 0]);
    const cos = fastEdgeCosines(g, vectors, 2);
    expect(cos[findEdge(g, 0, 1)]).toBe(0.5);
    expect(cos[findEdge(g, 1, 0)]).toBe(0.5);
    expect(cos[findEdge(g, 2, 1)]).toBeCloseTo(Math.sqrt(0.75), 6);
    expect(Object.keys(edges(filterEdges(g, cos, 0.5))).sort()).toEqual(['a-b', 'b-a', 'b-c', 'c-b']);
    expect(Object.keys(edges(filterEdges(g, cos, 0.5000001))).sort()).toEqual(['b-c', 'c-b']);
    expect(() => fastEdgeCosines(g, vectors.subarray(0, 4), 2)).toThrow(/concept vectors/);
  });
});

describe('computeConceptVectors', () => {
  it('averages the vectors of the sentences containing the concept, then normalizes', () => {
    const t = extractConcepts([['x', 'y'], ['x']], { conceptsPerChunk: 0, maxDfFraction: 1 });
    // chunk 0: sentence 0 "x" → [1,0]; sentence 1 "y" → [0,1]; chunk 1: sentence 2 "x" → [0,1].
    const v = computeConceptVectors(
      t,
      { sentenceOffsets: Uint32Array.from([0, 2, 3]), sentenceTerms: [['x'], ['y'], ['x']] },
      Float32Array.from([1, 0, 0, 1, 0, 1]),
      2,
    );
    // x: mean([1,0],[0,1]) normalized = [0.7071, 0.7071]; y: [0, 1].
    expect(v[0]).toBeCloseTo(Math.SQRT1_2, 5);
    expect(v[1]).toBeCloseTo(Math.SQRT1_2, 5);
    expect(Array.from(v.subarray(2))).toEqual([0, 1]);
  });

  it('falls back to the chunk sentences for a concept no sentence contains', () => {
    const t = extractConcepts([['p q']], { conceptsPerChunk: 0, maxDfFraction: 1 });
    const v = computeConceptVectors(
      t,
      { sentenceOffsets: Uint32Array.from([0, 2]), sentenceTerms: [['p'], ['q']] },
      Float32Array.from([3, 0, 0, 4]),
      2,
    );
    expect(v[0]).toBeCloseTo(0.6, 5);
    expect(v[1]).toBeCloseTo(0.8, 5);
    expect(() =>
      computeConceptVectors(
        t,
        { sentenceOffsets: Uint32Array.from([0, 1]), sentenceTerms: [['p']] },
        new Float32Array(4),
        2,
      ),
    ).toThrow(/floats/);
  });
});

describe('weightedDegreesFromTable', () => {
  // A seeded table of 300 chunks over 120 terms, each chunk 3–14 draws (repeats make tf > 1).
  function randomTable(seed: number) {
    let s = seed;
    const next = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const chunks = Array.from({ length: 300 }, () =>
      Array.from({ length: 3 + Math.floor(next() * 12) }, () => `t${Math.floor(next() ** 2 * 120)}`),
    );
    return extractConcepts(chunks, { conceptsPerChunk: 0, maxDfFraction: 0.3 });
  }

  it('equals the weighted degrees of the built graph, bit for bit, at θco 1, 2 and 3', () => {
    for (const seed of [1, 7, 25]) {
      const t = randomTable(seed);
      for (const theta of [1, 2, 3]) {
        const expected = weightedDegrees(buildCooccurrenceGraph(t, theta));
        const actual = weightedDegreesFromTable(t, theta);
        expect(actual.length).toBe(expected.length);
        const differing = [...actual.keys()].filter((u) => actual[u] !== expected[u]);
        expect(differing).toEqual([]);
      }
    }
    // The five-concept table above: a's row is b (0.8) and c (0.5).
    expect(weightedDegreesFromTable(table, 1)[0]).toBe(Math.fround(0.8) + Math.fround(0.5));
  });
});
