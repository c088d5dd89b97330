// The semantic layer of a new snapshot of the incremental concept graph without recomputing every edge cosine
// (MuSiQue: ~6 M edges × 512 dimensions, the slowest step of a rebuild with vectors). An edge cosine is a function of
// its two concept vectors only, and a concept's vector is the Float32 mean of its sentences' vectors summed in
// chunk order: a concept whose sentences are all in chunks that did not change gets the same vector bit for bit.
// So concept vectors are computed again (one pass over the sentences, cheap), compared bitwise with the previous
// ones, and an edge between two unchanged concepts takes its previous cosine; every other edge is computed with
// the same dot product as fastEdgeCosines. The result equals addSemanticLayer on the new snapshot (cosines and walk
// graph exactly; PageRank warm-started from the previous ranks).
import { withSemantic, addSemanticLayer, type ConceptGraphIndex } from './conceptGraph.ts';
import { computeConceptVectors, type SentenceLayout } from './conceptVectors.ts';
import { edgeCosine } from './semanticEdges.ts';

export interface SemanticUpdate {
  index: ConceptGraphIndex;
  /** Undirected edges whose cosine was computed (the rest were carried over from the previous layer). */
  computedEdges: number;
  /** Undirected edges in all. */
  edges: number;
}

/**
 * Adds the semantic layer to `next` (a lexical snapshot), reusing the cosines of `previous` (an index with a
 * semantic layer that has its cosines, e.g. the last result of this function or of addSemanticLayer). Without a
 * usable previous layer (none, another dimension, or only a keep-mask) it is addSemanticLayer.
 */
export function updateSemanticLayer(
  previous: ConceptGraphIndex | undefined,
  next: ConceptGraphIndex,
  layout: SentenceLayout,
  sentenceVectors: Float32Array,
  dimension: number,
): SemanticUpdate {
  const edges = next.cooccurrence.targets.length / 2;
  const prevLayer = previous?.semantic;
  if (!previous || !prevLayer?.cosines || prevLayer.dimension !== dimension) {
    return { index: addSemanticLayer(next, layout, sentenceVectors, dimension), computedEdges: edges, edges };
  }
  const prevCosines = prevLayer.cosines;
  const conceptVectors = computeConceptVectors(next.table, layout, sentenceVectors, dimension);
  const nc = next.table.terms.length;
  // Previous id of each concept (both term lists are sorted, so one merge), and whether its vector is unchanged.
  const prevTerms = previous.table.terms;
  const prevId = new Int32Array(nc).fill(-1);
  for (let c = 0, p = 0; c < nc && p < prevTerms.length;) {
    const a = next.table.terms[c];
    const b = prevTerms[p];
    if (a === b) prevId[c++] = p++;
    else if (a < b) c++;
    else p++;
  }
  const bits = new Uint32Array(conceptVectors.buffer, conceptVectors.byteOffset, conceptVectors.length);
  const prevVectors = prevLayer.conceptVectors;
  const prevBits = new Uint32Array(prevVectors.buffer, prevVectors.byteOffset, prevVectors.length);
  const stable = new Uint8Array(nc);
  for (let c = 0; c < nc; c++) {
    const p = prevId[c];
    if (p < 0) continue;
    let same = 1;
    for (let d = 0, o = c * dimension, q = p * dimension; d < dimension; d++) {
      if (bits[o + d] !== prevBits[q + d]) {
        same = 0;
        break;
      }
    }
    stable[c] = same;
  }

  const g = next.cooccurrence;
  const pg = previous.cooccurrence;
  const cosines = new Float32Array(g.targets.length);
  // Reverse edges by the cursor of fastEdgeCosines: sources u < v reach row v in ascending order.
  const cursor = g.offsets.slice(0, nc);
  let computed = 0;
  for (let u = 0; u < nc; u++) {
    const pu = prevId[u];
    // Walk the previous row alongside: the id maps keep order, so its targets come in the same order.
    let pe = stable[u] ? pg.offsets[pu] : 0;
    const pend = stable[u] ? pg.offsets[pu + 1] : 0;
    for (let e = g.offsets[u]; e < g.offsets[u + 1]; e++) {
      const v = g.targets[e];
      if (v <= u) continue;
      let s: number | undefined;
      if (stable[u] && stable[v]) {
        const pv = prevId[v];
        while (pe < pend && pg.targets[pe] < pv) pe++;
        if (pe < pend && pg.targets[pe] === pv) s = prevCosines[pe];
      }
      if (s === undefined) {
        s = edgeCosine(conceptVectors, u * dimension, v * dimension, dimension);
        computed++;
      }
      cosines[e] = s;
      const back = cursor[v]++;
      if (g.targets[back] !== u) throw new Error(`semantic update: edge ${u}→${v} has no reverse`);
      cosines[back] = s;
    }
  }

  // Warm start of the walk graph's PageRank from the previous ranks (new concepts: uniform share), renormalized.
  const initial = new Float64Array(nc).fill(nc > 0 ? 1 / nc : 0);
  for (let c = 0; c < nc; c++) if (prevId[c] >= 0) initial[c] = previous.conceptRank[prevId[c]] ?? initial[c];
  let sum = 0;
  for (let c = 0; c < nc; c++) sum += initial[c];
  if (sum > 0) for (let c = 0; c < nc; c++) initial[c] /= sum;
  const index = withSemantic(next, { dimension, conceptVectors, cosines }, nc > 0 ? initial : undefined);
  return { index, computedEdges: computed, edges };
}
