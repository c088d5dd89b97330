// `concept` mode: G2ConS concept-graph local search. The top-k concepts most similar to the question are the
// direct concepts; each one's chunks are re-ranked by similarity to the question (local re-rank); then a BFS from
// the direct concepts to N hops, and all chunks of the expanded concepts re-ranked together (global re-rank).
// Without vectors the direct concepts are the question's own concepts by IDF and similarity is BM25.
import type { ConceptGraphIndex } from '../graph/index.ts';
import type { RetrievalParams } from './params.ts';
import { topK } from './topk.ts';
import type { Candidate } from './types.ts';

export interface ConceptSearchInput {
  graph: ConceptGraphIndex;
  conceptIds: ReadonlyMap<string, number>;
  params: RetrievalParams;
  questionTerms: readonly string[];
  vector?: Float32Array;
  /** Similarity of every chunk to the question (cosine, or BM25 when there are no vectors). */
  chunkSimilarity: ArrayLike<number>;
}

function directConcepts(input: ConceptSearchInput): number[] {
  const { graph, params, vector } = input;
  const sem = graph.semantic;
  if (sem && vector) {
    const nc = graph.table.terms.length;
    const dim = sem.dimension;
    const cosines = new Float64Array(nc);
    for (let c = 0; c < nc; c++) {
      let s = 0;
      for (let d = 0; d < dim; d++) s += sem.conceptVectors[c * dim + d] * vector[d];
      cosines[c] = s;
    }
    return topK(cosines, params.conceptTopK, undefined, -Infinity);
  }
  const idf = new Float64Array(graph.table.terms.length);
  const found: number[] = [];
  for (const t of input.questionTerms) {
    const c = input.conceptIds.get(t);
    if (c !== undefined && idf[c] === 0) {
      idf[c] = graph.table.idf[c] + 1e-9;
      found.push(c);
    }
  }
  return topK(idf, params.conceptTopK, found);
}

/**
 * The local step: each direct concept in order, its chunks best first, at most `perConcept` of them (0: all) and
 * none twice (`taken` gains them). Undefined while a concept's chunks are unread (a paged index, conceptRanking.ts).
 */
export function localStep(
  direct: readonly number[],
  chunksOf: (c: number) => ArrayLike<number> | undefined,
  sim: (k: number) => number,
  perConcept: number,
  limit: number,
  taken: Set<number>,
): Candidate[] | undefined {
  const out: Candidate[] = [];
  for (const c of direct) {
    const list = chunksOf(c);
    if (!list) return undefined;
    const chunks = Array.from(list).sort((a, b) => sim(b) - sim(a) || a - b);
    const cap = perConcept > 0 ? perConcept : chunks.length;
    let used = 0;
    for (const k of chunks) {
      if (used >= cap || out.length >= limit) break;
      if (taken.has(k)) continue;
      taken.add(k);
      used++;
      out.push({ chunk: k, score: sim(k), concepts: [c], hop: 0 });
    }
  }
  return out;
}

export function conceptSearch(input: ConceptSearchInput, limit: number): Candidate[] {
  const { graph, params, chunkSimilarity: sim } = input;
  const t = graph.table;
  const g = graph.graph;
  const direct = directConcepts(input);
  const taken = new Set<number>();
  const out = localStep(
    direct,
    (c) => t.conceptChunks.subarray(t.conceptChunkOffsets[c], t.conceptChunkOffsets[c + 1]),
    (k) => sim[k],
    params.conceptChunksPerConcept,
    limit,
    taken,
  )!;
  if (out.length >= limit) return out;
  // BFS to N hops over the concept graph (typed arrays: two hops often reach most of the graph).
  const nc = t.terms.length;
  const hop = new Int8Array(nc).fill(-1);
  for (const c of direct) hop[c] = 0;
  let frontier = direct;
  for (let h = 1; h <= params.conceptHops && frontier.length > 0; h++) {
    const next: number[] = [];
    for (const u of frontier) {
      for (let e = g.offsets[u]; e < g.offsets[u + 1]; e++) {
        const v = g.targets[e];
        if (hop[v] >= 0) continue;
        hop[v] = h;
        next.push(v);
      }
    }
    frontier = next;
  }
  // Global re-rank: every not yet taken chunk of every reached concept, best similarity first.
  const pool: number[] = [];
  const inPool = new Uint8Array(t.chunkCount);
  for (let c = 0; c < nc; c++) {
    if (hop[c] < 0) continue;
    for (let j = t.conceptChunkOffsets[c]; j < t.conceptChunkOffsets[c + 1]; j++) {
      const k = t.conceptChunks[j];
      if (inPool[k] || taken.has(k)) continue;
      inPool[k] = 1;
      pool.push(k);
    }
  }
  for (const k of topK(sim, limit - out.length, pool, -Infinity)) {
    // Provenance: the chunk's concept closest (in hops) to the direct concepts.
    let via = -1;
    for (let j = t.chunkConceptOffsets[k]; j < t.chunkConceptOffsets[k + 1]; j++) {
      const c = t.chunkConcepts[j];
      if (hop[c] >= 0 && (via < 0 || hop[c] < hop[via])) via = c;
    }
    out.push({ chunk: k, score: sim[k], concepts: [via], hop: hop[via] });
  }
  return out;
}
