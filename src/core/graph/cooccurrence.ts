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

/**
 * Builds every edge with Co ≥ θco with a dense scratch counter (no hash maps). Each pair is counted from its lower
 * concept u (only the concepts above u in u's chunks), once to size the symmetric CSR and once to fill it: opening a
 * large library rebuilds this graph (MuSiQue: ~6 M pairs), and counting both directions then sorting ~12 M row
 * entries was most of its time.
 */
export function buildCooccurrenceGraph(table: ConceptTable, thetaCo: number): ConceptGraph {
  if (!(thetaCo >= 1)) throw new Error(`co-occurrence graph: θco must be ≥ 1, got ${thetaCo}`);
  const nc = table.terms.length;
  const { conceptChunkOffsets: cco, conceptChunks: cc, chunkConceptOffsets: kco, chunkConcepts: kc } = table;
  const ascending = chunksAscending(kco, kc, table.chunkCount);
  for (let u = 0; u < nc; u++) {
    // Co ≤ |T(u)|: below 2^23 every count is recovered exactly from its float32 weight (withDerivedCounts).
    if (cco[u + 1] - cco[u] >= 1 << 23) {
      throw new Error(`co-occurrence graph: concept "${table.terms[u]}" is in 2^23 chunks or more`);
    }
  }
  const counts = new Uint32Array(nc);
  const touched = new Uint32Array(nc);
  /** Counts Co(u, v) for every v > u sharing a chunk with u: the vs in touched[0, n), their counts in counts. */
  const countAbove = (u: number): number => {
    let nt = 0;
    for (let i = cco[u]; i < cco[u + 1]; i++) {
      const k = cc[i];
      const end = kco[k + 1];
      // Chunk lists are ascending (concept extraction makes them so), then the concepts above u are a suffix; a
      // table with unordered lists is still counted right, only slower.
      for (let j = ascending ? firstAbove(kc, kco[k], end, u) : kco[k]; j < end; j++) {
        const v = kc[j];
        if (v <= u) continue;
        if (counts[v] === 0) touched[nt++] = v;
        counts[v]++;
      }
    }
    return nt;
  };
  // First pass: per concept, the pairs kept with a higher concept (its row's upper part) and with a lower one (its
  // lower part), so the CSR is allocated at its size before any edge is written. Counting twice costs a second
  // pass; holding the pairs until the size was known cost their arrays (~110 MB on a 16 MB library) at the peak.
  const upperDegree = new Uint32Array(nc);
  const lowerDegree = new Uint32Array(nc);
  if (thetaCo <= 1) {
    // θco = 1 (the default) keeps every pair that shares a chunk: sizing needs only which concepts u meets, not how
    // often, so one mark per concept (u + 1 when met from u) replaces the counter, its list and its reset.
    const metFrom = new Uint32Array(nc);
    for (let u = 0; u < nc; u++) {
      const mark = u + 1;
      for (let i = cco[u]; i < cco[u + 1]; i++) {
        const k = cc[i];
        const end = kco[k + 1];
        for (let j = ascending ? firstAbove(kc, kco[k], end, u) : kco[k]; j < end; j++) {
          const v = kc[j];
          if (v <= u || metFrom[v] === mark) continue;
          metFrom[v] = mark;
          upperDegree[u]++;
          lowerDegree[v]++;
        }
      }
    }
  } else {
    for (let u = 0; u < nc; u++) {
      const nt = countAbove(u);
      for (let i = 0; i < nt; i++) {
        const v = touched[i];
        if (counts[v] >= thetaCo) {
          upperDegree[u]++;
          lowerDegree[v]++;
        }
        counts[v] = 0;
      }
    }
  }
  const offsets = new Uint32Array(nc + 1);
  for (let u = 0; u < nc; u++) offsets[u + 1] = offsets[u] + lowerDegree[u] + upperDegree[u];
  const m = offsets[nc];
  const targets = new Uint32Array(m);
  const weights = new Float32Array(m);
  // Second pass: row v = its lower part (targets < v) then its upper part, both ascending. The lower parts fill in
  // order as u ascends; each upper part is u's kept concepts sorted. The Dice weight is computed once per pair:
  // tu + tv is an exact integer, so both directions are the same float anyway.
  const lowerCursor = offsets.slice(0, nc);
  const above = new Uint32Array(nc);
  for (let u = 0; u < nc; u++) {
    const nt = countAbove(u);
    let kept = 0;
    for (let i = 0; i < nt; i++) if (counts[touched[i]] >= thetaCo) above[kept++] = touched[i];
    const row = above.subarray(0, kept).sort();
    const tu = cco[u + 1] - cco[u];
    let at = offsets[u] + lowerDegree[u];
    for (const v of row) {
      const w = diceWeight(counts[v], tu, cco[v + 1] - cco[v]);
      targets[at] = v;
      weights[at++] = w;
      const back = lowerCursor[v]++;
      targets[back] = u;
      weights[back] = w;
    }
    for (let i = 0; i < nt; i++) counts[touched[i]] = 0;
  }
  return withDerivedCounts({ nodeCount: nc, offsets, targets, weights }, cco);
}

/** Dice weight of an edge: 2·Co / (|T(u)| + |T(v)|) (stored as a float32 by every graph and row). */
export function diceWeight(co: number, tu: number, tv: number): number {
  return (2 * co) / (tu + tv);
}

/**
 * The weighted degree of every concept in the co-occurrence graph of `table` (Co ≥ θco), computed a row at a time
 * without the graph: equal, bit for bit, to weightedDegrees(buildCooccurrenceGraph(table, thetaCo)) (each row's
 * float32 Dice weights summed in ascending target order). A gigabyte of text has hundreds of millions of edges, more
 * than memory holds; its streaming build (src/cli/streamIndex.ts) needs only the degrees.
 */
export function weightedDegreesFromTable(
  table: ConceptTable,
  thetaCo: number,
  onProgress?: (done: number) => void,
): Float64Array {
  if (!(thetaCo >= 1)) throw new Error(`co-occurrence graph: θco must be ≥ 1, got ${thetaCo}`);
  const nc = table.terms.length;
  const { conceptChunkOffsets: cco, conceptChunks: cc, chunkConceptOffsets: kco, chunkConcepts: kc } = table;
  const counts = new Uint32Array(nc);
  let touched = new Uint32Array(1024);
  const degrees = new Float64Array(nc);
  const weight = new Float32Array(1);
  for (let u = 0; u < nc; u++) {
    let nt = 0;
    for (let i = cco[u]; i < cco[u + 1]; i++) {
      const k = cc[i];
      for (let j = kco[k]; j < kco[k + 1]; j++) {
        const v = kc[j];
        if (v === u) continue;
        if (counts[v] === 0) {
          if (nt === touched.length) {
            const grown = new Uint32Array(touched.length * 2);
            grown.set(touched);
            touched = grown;
          }
          touched[nt++] = v;
        }
        counts[v]++;
      }
    }
    const row = touched.subarray(0, nt).sort();
    const tu = cco[u + 1] - cco[u];
    let s = 0;
    for (let i = 0; i < nt; i++) {
      const v = row[i];
      if (counts[v] >= thetaCo) {
        weight[0] = diceWeight(counts[v], tu, cco[v + 1] - cco[v]);
        s += weight[0];
      }
      counts[v] = 0;
    }
    degrees[u] = s;
    if (onProgress && (u & 0xffff) === 0) onProgress(u);
  }
  return degrees;
}

/** Marks a graph whose Co counts follow from its Dice weights and its concepts' chunk counts (see withDerivedCounts). */
const CHUNK_OFFSETS = Symbol('conceptChunkOffsets');

/**
 * The graph with `co` derived from the weights when first read: Co(u, v) = Dice · (|T(u)| + |T(v)|) / 2, exact
 * after rounding (a float32 Dice has a relative error below 2^-24, so the product is within 0.5 of Co while Co is
 * under 2^23). The walks read only targets and weights; the counts are read when a graph is exported or updated,
 * and storing them beside the weights was a third of the engine's memory (68 MB on a 16 MB library).
 */
function withDerivedCounts(graph: Omit<ConceptGraph, 'co'>, conceptChunkOffsets: Uint32Array): ConceptGraph {
  let co: Uint32Array | undefined;
  const derived = Object.defineProperty(graph, 'co', {
    enumerable: true,
    configurable: true,
    get: () => (co ??= countsFromWeights(graph, conceptChunkOffsets)),
  }) as ConceptGraph;
  Object.defineProperty(derived, CHUNK_OFFSETS, { value: conceptChunkOffsets });
  return derived;
}

function countsFromWeights(graph: Omit<ConceptGraph, 'co'>, cco: Uint32Array): Uint32Array {
  const { nodeCount, offsets, targets, weights } = graph;
  const co = new Uint32Array(targets.length);
  for (let u = 0; u < nodeCount; u++) {
    const tu = cco[u + 1] - cco[u];
    for (let e = offsets[u]; e < offsets[u + 1]; e++) {
      const v = targets[e];
      co[e] = Math.round((weights[e] * (tu + cco[v + 1] - cco[v])) / 2);
    }
  }
  return co;
}

/**
 * The edges of `graph` that `keep` selects, in order, as a graph of their own: with derived counts when `graph`
 * has them (the weights are the same Dice weights), else with its counts copied.
 */
export function selectEdges(graph: ConceptGraph, keep: (e: number) => boolean, kept: number): ConceptGraph {
  const offsets = new Uint32Array(graph.nodeCount + 1);
  const targets = new Uint32Array(kept);
  const weights = new Float32Array(kept);
  const chunkOffsets = (graph as { [CHUNK_OFFSETS]?: Uint32Array })[CHUNK_OFFSETS];
  const co = chunkOffsets ? undefined : new Uint32Array(kept);
  const sourceCo = chunkOffsets ? undefined : graph.co;
  let m = 0;
  for (let u = 0; u < graph.nodeCount; u++) {
    for (let e = graph.offsets[u]; e < graph.offsets[u + 1]; e++) {
      if (!keep(e)) continue;
      targets[m] = graph.targets[e];
      if (co) co[m] = sourceCo![e];
      weights[m++] = graph.weights[e];
    }
    offsets[u + 1] = m;
  }
  const base = { nodeCount: graph.nodeCount, offsets, targets, weights };
  return chunkOffsets ? withDerivedCounts(base, chunkOffsets) : { ...base, co: co! };
}

/** Whether every chunk's concept list is strictly ascending (then the pairs above a concept are found by search). */
function chunksAscending(kco: Uint32Array, kc: Uint32Array, chunkCount: number): boolean {
  for (let k = 0; k < chunkCount; k++) {
    for (let j = kco[k] + 1; j < kco[k + 1]; j++) if (kc[j] <= kc[j - 1]) return false;
  }
  return true;
}

/** First index in the ascending kc[lo .. hi) whose concept is above u (hi when none is). */
function firstAbove(kc: Uint32Array, lo: number, hi: number, u: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (kc[mid] <= u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
  let m = 0;
  for (let e = 0; e < cosines.length; e++) if (cosines[e] >= thetaSem) m++;
  return selectEdges(graph, (e) => cosines[e] >= thetaSem, m);
}
