// The concept co-occurrence graph (G2ConS step 3) as a symmetric CSR: an edge (wi, wj) iff the two concepts share
// at least θco chunks, weighted by Dice = 2·Co / (|T(wi)| + |T(wj)|). The semantic θsem filter is applied
// separately (filterEdges) once concept vectors exist, so this lexical graph is usable before embeddings are done.
import type { ConceptTable } from './concepts.ts';

/** Undirected weighted graph in CSR form: neighbours of node u are targets[offsets[u] .. offsets[u+1]). */
export interface ConceptGraph {
  nodeCount: number;
  offsets: Uint32Array;
  /** Ascending within each row. */
  targets: Uint32Array;
  /** Co(u, v): chunks shared by the two concepts. */
  co: Uint32Array;
  /** Dice weight of the edge. */
  weights: Float32Array;
}

/** Builds every edge with Co ≥ θco in one pass per concept, using a dense scratch counter (no hash maps). */
export function buildCooccurrenceGraph(table: ConceptTable, thetaCo: number): ConceptGraph {
  if (!(thetaCo >= 1)) throw new Error(`co-occurrence graph: θco must be ≥ 1, got ${thetaCo}`);
  const nc = table.terms.length;
  const { conceptChunkOffsets: cco, conceptChunks: cc, chunkConceptOffsets: kco, chunkConcepts: kc } = table;
  const counts = new Uint32Array(nc);
  const touched = new Uint32Array(nc);
  const offsets = new Uint32Array(nc + 1);
  let targets: Uint32Array<ArrayBuffer> = new Uint32Array(1024);
  let co: Uint32Array<ArrayBuffer> = new Uint32Array(1024);
  let m = 0;
  for (let u = 0; u < nc; u++) {
    let nt = 0;
    for (let i = cco[u]; i < cco[u + 1]; i++) {
      const k = cc[i];
      for (let j = kco[k]; j < kco[k + 1]; j++) {
        const v = kc[j];
        if (v === u) continue;
        if (counts[v] === 0) touched[nt++] = v;
        counts[v]++;
      }
    }
    const row = touched.subarray(0, nt).sort();
    for (let i = 0; i < nt; i++) {
      const v = row[i];
      if (counts[v] >= thetaCo) {
        if (m === targets.length) {
          targets = grow(targets);
          co = grow(co);
        }
        targets[m] = v;
        co[m++] = counts[v];
      }
      counts[v] = 0;
    }
    offsets[u + 1] = m;
  }
  targets = targets.slice(0, m);
  co = co.slice(0, m);
  const weights = new Float32Array(m);
  for (let u = 0; u < nc; u++) {
    const tu = cco[u + 1] - cco[u];
    for (let e = offsets[u]; e < offsets[u + 1]; e++) {
      const v = targets[e];
      weights[e] = (2 * co[e]) / (tu + cco[v + 1] - cco[v]);
    }
  }
  return { nodeCount: nc, offsets, targets, co, weights };
}

function grow(a: Uint32Array): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Index of edge u→v in the CSR, or -1 (binary search: rows are sorted). */
export function findEdge(graph: ConceptGraph, u: number, v: number): number {
  let lo = graph.offsets[u];
  let hi = graph.offsets[u + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const t = graph.targets[mid];
    if (t === v) return mid;
    if (t < v) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Keeps the edges whose cosine is ≥ θsem (the semantic condition of G2ConS eq. 2). */
export function filterEdges(graph: ConceptGraph, cosines: Float32Array, thetaSem: number): ConceptGraph {
  const offsets = new Uint32Array(graph.nodeCount + 1);
  let m = 0;
  for (let e = 0; e < cosines.length; e++) if (cosines[e] >= thetaSem) m++;
  const targets = new Uint32Array(m);
  const co = new Uint32Array(m);
  const weights = new Float32Array(m);
  m = 0;
  for (let u = 0; u < graph.nodeCount; u++) {
    for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++) {
      if (cosines[e] >= thetaSem) {
        targets[m] = graph.targets[e];
        co[m] = graph.co[e];
        weights[m++] = graph.weights[e];
      }
    }
    offsets[u + 1] = m;
  }
  return { nodeCount: graph.nodeCount, offsets, targets, co, weights };
}
