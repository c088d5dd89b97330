import { describe, expect, it } from 'vitest';
import { extractConcepts } from '../../../src/core/graph/concepts.ts';
import {
  buildCooccurrenceGraph,
  filterEdges,
  type ConceptGraph,
} from '../../../src/core/graph/cooccurrence.ts';
import {
  fastEdgeCosines,
  filterByKeepMask,
  keepMaskOf,
  undirectedEdgeCount,
} from '../../../src/core/graph/semanticEdges.ts';

// Concepts a..e = ids 0..4. T(a)={0,1} T(b)={0,1,2} T(c)={0,2} T(d)={2,3} T(e)={3}.
// Undirected edges in CSR order (u < v): a-b, a-c, b-c, b-d, c-d, d-e (bits 0..5).
const CHUNKS = [
  ['a', 'b', 'c'],
  ['a', 'b'],
  ['b', 'c', 'd'],
  ['d', 'e'],
];
const table = extractConcepts(CHUNKS, { conceptsPerChunk: 0, maxDfFraction: 1 });
const graph = buildCooccurrenceGraph(table, 1);
// a = b = (1, 0), c = d = (0, 1), e = (0.6, 0.8): cosines a-b 1, a-c 0, b-c 0, b-d 0, c-d 1, d-e 0.8.
const VECTORS = Float32Array.from([1, 0, 1, 0, 0, 1, 0, 1, 0.6, 0.8]);

function pairs(g: ConceptGraph): string[] {
  const out: string[] = [];
  for (let u = 0; u < g.nodeCount; u++) {
    for (let e = g.offsets[u]; e < g.offsets[u + 1]; e++)
      out.push(`${table.terms[u]}-${table.terms[g.targets[e]]}`);
  }
  return out;
}

describe('semantic edges', () => {
  it('computes each undirected cosine once and mirrors it', () => {
    expect(undirectedEdgeCount(graph)).toBe(6);
    const fast = fastEdgeCosines(graph, VECTORS, 2);
    // Row a: b, c; row b: a, c, d; row c: a, b, d; row d: b, c, e; row e: d.
    expect(Array.from(fast, (x) => Number(x.toFixed(6)))).toEqual([1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0.8, 0.8]);
  });

  it('packs the θsem outcome into one bit per undirected edge and rebuilds the filtered graph from it', () => {
    const cosines = fastEdgeCosines(graph, VECTORS, 2);
    const mask = keepMaskOf(graph, cosines, 0.5);
    // a-b (bit 0), c-d (bit 4), d-e (bit 5): 1 + 16 + 32.
    expect(Array.from(mask)).toEqual([49]);
    const filtered = filterByKeepMask(graph, mask);
    expect(filtered).toEqual(filterEdges(graph, cosines, 0.5));
    expect(pairs(filtered)).toEqual(['a-b', 'b-a', 'c-d', 'd-c', 'd-e', 'e-d']);
    expect(Array.from(keepMaskOf(graph, cosines, 0.9))).toEqual([17]);
  });

  it('refuses a mask of the wrong length, bits past the last edge, and an asymmetric graph', () => {
    expect(() => filterByKeepMask(graph, new Uint8Array(2))).toThrow(
      'semantic edges: keep-mask of 2 bytes does not match 6 undirected edges (1 bytes)',
    );
    expect(() => filterByKeepMask(graph, Uint8Array.from([64]))).toThrow(
      'semantic edges: keep-mask has bits set past the last edge',
    );
    // a→b without b→a (two directed edges, one "undirected" by count).
    const oneWay: ConceptGraph = {
      nodeCount: 2,
      offsets: Uint32Array.from([0, 1, 2]),
      targets: Uint32Array.from([1, 1]),
      co: Uint32Array.from([1, 1]),
      weights: Float32Array.from([1, 1]),
    };
    expect(() => fastEdgeCosines(oneWay, Float32Array.from([1, 0, 1, 0]), 2)).toThrow(
      'semantic edges: the graph is not symmetric (edge 0→1 has no reverse)',
    );
    expect(() => filterByKeepMask(oneWay, Uint8Array.from([1]))).toThrow('not symmetric');
    expect(() => fastEdgeCosines(graph, VECTORS, 3)).toThrow('concept vectors hold 10 floats, expected 5×3');
    expect(() => keepMaskOf(graph, new Float32Array(3), 0.5)).toThrow('3 cosines for 12 edges');
  });
});
