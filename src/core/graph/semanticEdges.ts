// The semantic condition on co-occurrence edges, computed fast and carried compactly. Edge cosines are computed
// once per undirected edge (mirrored into the reverse edge by a per-row cursor, no binary search); the θsem outcome of
// every undirected edge fits in a keep-mask of one bit per edge, which bundles carry so an import rebuilds only
// the (deterministic) lexical graph and applies the mask instead of recomputing ~6 M cosines of 512 dimensions.
import { selectEdges, type ConceptGraph } from './cooccurrence.ts';

/**
 * Cosine of the endpoint vectors of every directed edge (aligned with graph.targets), unit rows `dim` wide.
 * Four accumulators: about twice as fast in V8 (this loop is most of the semantic layer's build time).
 */
export function fastEdgeCosines(graph: ConceptGraph, vectors: Float32Array, dim: number): Float32Array {
  if (vectors.length !== graph.nodeCount * dim) {
    throw new Error(
      `semantic edges: concept vectors hold ${vectors.length} floats, expected ${graph.nodeCount}×${dim}`,
    );
  }
  const { offsets, targets } = graph;
  const out = new Float32Array(targets.length);
  // cursor[v]: the next edge of row v whose target is below v. Rows are sorted and the graph is symmetric, so
  // the sources u < v reach row v in ascending order: the reverse of edge u→v is always row v's cursor.
  const cursor = offsets.slice(0, graph.nodeCount);
  // The dot products are most of the time (MuSiQue: ~6 M edges × 512 dimensions); copying row u to a local
  // Float32Array or Float64Array measured no faster, so they read the matrix directly.
  for (let u = 0; u < graph.nodeCount; u++) {
    const ou = u * dim;
    for (let e = offsets[u]; e < offsets[u + 1]; e++) {
      const v = targets[e];
      if (v <= u) continue;
      const s = edgeCosine(vectors, ou, v * dim, dim);
      out[e] = s;
      const back = cursor[v]++;
      if (targets[back] !== u) {
        throw new Error(`semantic edges: the graph is not symmetric (edge ${u}→${v} has no reverse)`);
      }
      out[back] = s;
    }
  }
  return out;
}

/**
 * Dot product of the unit rows starting at ou and ov: the cosine of one edge. Four accumulators: about twice as fast
 * in V8 as one.
 */
function edgeCosine(vectors: Float32Array, ou: number, ov: number, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let d = 0;
  for (; d + 3 < dim; d += 4) {
    s0 += vectors[ou + d] * vectors[ov + d];
    s1 += vectors[ou + d + 1] * vectors[ov + d + 1];
    s2 += vectors[ou + d + 2] * vectors[ov + d + 2];
    s3 += vectors[ou + d + 3] * vectors[ov + d + 3];
  }
  for (; d < dim; d++) s0 += vectors[ou + d] * vectors[ov + d];
  return s0 + s1 + s2 + s3;
}

/** Undirected edges (u < v) of a symmetric graph without self-loops. */
export function undirectedEdgeCount(graph: ConceptGraph): number {
  return graph.targets.length / 2;
}

/** Bytes of a keep-mask for `edges` undirected edges. */
export function keepMaskBytes(edges: number): number {
  return Math.ceil(edges / 8);
}

/**
 * One bit per undirected edge u < v, in CSR order (row u ascending, then target ascending): set when the edge's
 * cosine is ≥ θsem. Bit i is byte i >> 3, bit i & 7.
 */
export function keepMaskOf(graph: ConceptGraph, cosines: Float32Array, thetaSem: number): Uint8Array {
  if (cosines.length !== graph.targets.length) {
    throw new Error(`semantic edges: ${cosines.length} cosines for ${graph.targets.length} edges`);
  }
  const mask = new Uint8Array(keepMaskBytes(undirectedEdgeCount(graph)));
  let i = 0;
  for (let u = 0; u < graph.nodeCount; u++) {
    for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++) {
      if (graph.targets[e] <= u) continue;
      if (cosines[e] >= thetaSem) mask[i >> 3] |= 1 << (i & 7);
      i++;
    }
  }
  return mask;
}

/**
 * keepMaskOf(graph, fastEdgeCosines(graph, vectors, dim), thetaSem) without the cosine of every edge: each
 * undirected edge's cosine is computed, rounded to float32 as that array stores it, and compared at once. The ingest
 * worker stores only the mask, and the cosines were a float per directed edge (48 MB on MuSiQue) held at its peak.
 */
export function keepMaskFromVectors(
  graph: ConceptGraph,
  vectors: Float32Array,
  dim: number,
  thetaSem: number,
): Uint8Array {
  if (vectors.length !== graph.nodeCount * dim) {
    throw new Error(
      `semantic edges: concept vectors hold ${vectors.length} floats, expected ${graph.nodeCount}×${dim}`,
    );
  }
  const { offsets, targets } = graph;
  const mask = new Uint8Array(keepMaskBytes(undirectedEdgeCount(graph)));
  let i = 0;
  for (let u = 0; u < graph.nodeCount; u++) {
    const ou = u * dim;
    for (let e = offsets[u]; e < offsets[u + 1]; e++) {
      const v = targets[e];
      if (v <= u) continue;
      if (Math.fround(edgeCosine(vectors, ou, v * dim, dim)) >= thetaSem) mask[i >> 3] |= 1 << (i & 7);
      i++;
    }
  }
  return mask;
}

/**
 * The walk graph from a keep-mask: the edges of `graph` whose undirected bit is set, both directions, in CSR
 * order (the same graph filterEdges gives from the cosines the mask was made from). Refuses a mask whose length
 * does not match the edge count, or with bits set past the last edge.
 */
export function filterByKeepMask(graph: ConceptGraph, mask: Uint8Array): ConceptGraph {
  const edges = undirectedEdgeCount(graph);
  if (mask.length !== keepMaskBytes(edges)) {
    throw new Error(
      `semantic edges: keep-mask of ${mask.length} bytes does not match ${edges} undirected edges ` +
        `(${keepMaskBytes(edges)} bytes)`,
    );
  }
  if (edges % 8 !== 0 && mask[mask.length - 1] >> (edges % 8) !== 0) {
    throw new Error('semantic edges: keep-mask has bits set past the last edge');
  }
  const n = graph.nodeCount;
  // keep[e] per directed edge: the forward bit, mirrored to the reverse edge with the same cursor as above.
  const keep = new Uint8Array(graph.targets.length);
  const cursor = graph.offsets.slice(0, n);
  let i = 0;
  for (let u = 0; u < n; u++) {
    for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++) {
      const v = graph.targets[e];
      if (v <= u) continue;
      const back = cursor[v]++;
      if (graph.targets[back] !== u) {
        throw new Error(`semantic edges: the graph is not symmetric (edge ${u}→${v} has no reverse)`);
      }
      if ((mask[i >> 3] >> (i & 7)) & 1) keep[e] = keep[back] = 1;
      i++;
    }
  }
  let m = 0;
  for (let e = 0; e < keep.length; e++) m += keep[e];
  return selectEdges(graph, (e) => keep[e] === 1, m);
}
