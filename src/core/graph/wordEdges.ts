// Semantic edges between concepts from general English word vectors (G2ConS's semantic edges, issue 45 item 3):
// two concepts whose vectors are close (a phrase's vector is the mean of its words') get an edge in the walk graph
// besides co-occurrence, so a walk from "slow" can reach "performance" where no passage names both. Only the walk
// graph changes: the concept table, the co-occurrence graph and the Graph view are as the words built them.
import type { ConceptTable } from './concepts.ts';
import type { ConceptGraph } from './cooccurrence.ts';
import type { WordVectors } from '../text/index.ts';

export interface WordEdgeOptions {
  /** Concepts considered: those in at least 2 chunks, the most widespread first, at most this many. */
  concepts: number;
  /** Smallest cosine of an edge. */
  minCosine: number;
  /** Each concept keeps its best this-many neighbours (an edge stays when either end keeps it). */
  perConcept: number;
}

/** Undirected word-vector edges u < v with their cosine. */
export interface WordEdges {
  from: Uint32Array;
  to: Uint32Array;
  cosine: Float32Array;
}

/** The unit vector of a concept: the mean of its words' rows; undefined when a word has none. */
function conceptVector(term: string, vectors: WordVectors, into: Float32Array): boolean {
  const words = term.split(' ');
  into.fill(0);
  const scratch = new Float32Array(vectors.dimension);
  for (const w of words) {
    const row = vectors.row(w);
    if (row === undefined || vectors.norms[row] === 0) return false;
    vectors.unit(row, scratch);
    for (let d = 0; d < into.length; d++) into[d] += scratch[d];
  }
  let n = 0;
  for (let d = 0; d < into.length; d++) n += into[d] * into[d];
  n = Math.sqrt(n);
  if (n === 0) return false;
  for (let d = 0; d < into.length; d++) into[d] /= n;
  return true;
}

/**
 * The word-vector edges of a concept table. Every pair of the chosen concepts is compared once (concepts² / 2 dot
 * products of `dimension`; the option `concepts` bounds the time).
 */
export function wordEdges(table: ConceptTable, vectors: WordVectors, options: WordEdgeOptions): WordEdges {
  const { concepts, minCosine, perConcept } = options;
  if (!(concepts >= 0 && perConcept >= 0 && minCosine > 0 && minCosine <= 1)) {
    throw new Error(`word edges: options ${JSON.stringify(options)} out of range`);
  }
  const dim = vectors.dimension;
  const cco = table.conceptChunkOffsets;
  const order: number[] = [];
  for (let c = 0; c < table.terms.length; c++) if (cco[c + 1] - cco[c] >= 2) order.push(c);
  order.sort((a, b) => cco[b + 1] - cco[b] - (cco[a + 1] - cco[a]) || a - b);
  const ids: number[] = [];
  const unit = new Float32Array(Math.min(order.length, concepts) * dim);
  const scratch = new Float32Array(dim);
  for (const c of order) {
    if (ids.length >= concepts) break;
    if (!conceptVector(table.terms[c], vectors, scratch)) continue;
    unit.set(scratch, ids.length * dim);
    ids.push(c);
  }
  const m = ids.length;
  // Each concept's best neighbours so far: flat lists, sorted on the way out (few pairs pass the cosine).
  const near: Array<Array<[number, number]>> = Array.from({ length: m }, () => []);
  for (let i = 0; i < m; i++) {
    const oi = i * dim;
    for (let j = i + 1; j < m; j++) {
      const oj = j * dim;
      let s = 0;
      for (let d = 0; d < dim; d++) s += unit[oi + d] * unit[oj + d];
      if (s >= minCosine) {
        near[i].push([j, s]);
        near[j].push([i, s]);
      }
    }
  }
  const kept = new Map<string, [number, number, number]>();
  for (let i = 0; i < m; i++) {
    const best = near[i].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, perConcept);
    for (const [j, s] of best) {
      const u = Math.min(ids[i], ids[j]);
      const v = Math.max(ids[i], ids[j]);
      kept.set(`${u} ${v}`, [u, v, s]);
    }
  }
  const list = [...kept.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return {
    from: Uint32Array.from(list, (e) => e[0]),
    to: Uint32Array.from(list, (e) => e[1]),
    cosine: Float32Array.from(list, (e) => e[2]),
  };
}

/**
 * The walk graph with the word-vector edges added, each of weight `weight` × cosine (added to the Dice weight where
 * the two concepts already co-occur). Rows stay ascending; the co-occurrence counts of new edges are 0.
 */
export function withWordEdges(graph: ConceptGraph, edges: WordEdges, weight: number): ConceptGraph {
  if (!(weight > 0)) return graph;
  const n = graph.nodeCount;
  const extra: Array<Array<[number, number]>> = Array.from({ length: n }, () => []);
  for (let e = 0; e < edges.from.length; e++) {
    const u = edges.from[e];
    const v = edges.to[e];
    if (u >= n || v >= n || u === v) throw new Error(`word edges: edge ${u}–${v} outside ${n} concepts`);
    extra[u].push([v, weight * edges.cosine[e]]);
    extra[v].push([u, weight * edges.cosine[e]]);
  }
  const offsets = new Uint32Array(n + 1);
  // At most every new edge is new in both directions: sized once, trimmed at the end (MuSiQue: ~12 M entries).
  const targets = new Uint32Array(graph.targets.length + 2 * edges.from.length);
  const weights = new Float32Array(targets.length);
  let m = 0;
  const push = (t: number, w: number): void => {
    targets[m] = t;
    weights[m++] = w;
  };
  for (let u = 0; u < n; u++) {
    const add = extra[u].sort((a, b) => a[0] - b[0]);
    let i = 0;
    for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++) {
      const t = graph.targets[e];
      while (i < add.length && add[i][0] < t) push(add[i][0], add[i++][1]);
      let w = graph.weights[e];
      if (i < add.length && add[i][0] === t) w += add[i++][1];
      push(t, w);
    }
    for (; i < add.length; i++) push(add[i][0], add[i][1]);
    offsets[u + 1] = m;
  }
  return {
    nodeCount: n,
    offsets,
    targets: targets.slice(0, m),
    // The walk reads weights and offsets only; co-occurrence counts stay with the co-occurrence graph.
    co: new Uint32Array(m),
    weights: weights.slice(0, m),
  };
}
