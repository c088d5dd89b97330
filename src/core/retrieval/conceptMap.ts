// The library-wide side of the concept-graph view: the concepts with the highest global PageRank, or one concept
// found by a typed word with its strongest neighbours. Bounded like the walk's view: a library of 66 k concepts
// and millions of edges is never drawn whole, only `limit` concepts and the heaviest `edges` among them.
import type { ConceptGraph, ConceptGraphIndex } from '../graph/index.ts';
import { topK } from './topk.ts';

interface ConceptMapNode {
  concept: number;
  term: string;
  /** Global PageRank of the concept on the walk graph. */
  rank: number;
  /** Chunks the concept was kept for, |T(c)|. */
  chunks: number;
}

/** An undirected walk-graph edge as the Graph view draws it (source < target). */
export type ConceptEdge = { source: number; target: number; weight: number };

export interface ConceptMap {
  /** The concept the search found (absent: the top concepts of the library). */
  focus?: number;
  nodes: ConceptMapNode[];
  /**
   * Walk-graph edges among `nodes` (source < target), heaviest first; with a focus, every edge of the focus to its
   * drawn neighbours is among them.
   */
  edges: ConceptEdge[];
  /** Other concepts matching the search, best PageRank first (for a "did you mean" list). */
  matches: string[];
}

export interface ConceptMapOptions {
  /** A word or phrase; empty = the library's top concepts. */
  search?: string;
  /** Concepts drawn (the focus and its heaviest neighbours, or the top concepts). */
  limit?: number;
  /** Edges drawn among them. */
  edges?: number;
  /** Other matches listed. */
  matches?: number;
}

const CONCEPT_MAP_LIMITS = Object.freeze({ limit: 120, edges: 400, matches: 8 });

/**
 * The top concepts by global PageRank (or by `subjects`' scores: subjects.ts), or, with a search, the best match and its heaviest neighbours. A match is
 * the exact term, else a term starting with the search, else one containing it (best PageRank first in each).
 * A search with no match gives no nodes.
 */
export function conceptMap(
  graph: ConceptGraphIndex,
  options: ConceptMapOptions = {},
  subjects?: (limit: number) => Float64Array,
): ConceptMap {
  const limit = Math.max(1, options.limit ?? CONCEPT_MAP_LIMITS.limit);
  const edgeCap = Math.max(0, options.edges ?? CONCEPT_MAP_LIMITS.edges);
  const terms = graph.table.terms;
  const rank = graph.conceptRank;
  const search = (options.search ?? '').toLowerCase().replace(/\s+/g, ' ').trim();
  if (!search) {
    // The library's subjects (subjects.ts) when the caller has the word index to weigh them, else PageRank alone.
    const order = subjects?.(limit);
    const ids = order ? topSubjects(order, rank, limit) : topK(rank, limit);
    return { nodes: ids.map(node), edges: edgesAmong(graph, ids, edgeCap), matches: [] };
  }
  const found = matching(terms, rank, search, (options.matches ?? CONCEPT_MAP_LIMITS.matches) + 1);
  if (found.length === 0) return { nodes: [], edges: [], matches: [] };
  const focus = found[0];
  const g = graph.graph;
  // The focus's neighbours by edge weight (the walk spreads mass along the heaviest edges first).
  const weights = new Float64Array(g.offsets[focus + 1] - g.offsets[focus]);
  for (let e = g.offsets[focus]; e < g.offsets[focus + 1]; e++) weights[e - g.offsets[focus]] = g.weights[e];
  const picked = topK(weights, limit - 1);
  const neighbours = picked.map((i) => g.targets[g.offsets[focus] + i]);
  const ids = [focus, ...neighbours];
  // The focus's own edges always (they are why its neighbours are drawn), then the heaviest among the neighbours.
  const star = starEdges(focus, neighbours, picked, weights, edgeCap);
  const rest = edgesAmong(graph, neighbours, Math.max(0, edgeCap - star.length));
  return {
    focus,
    nodes: ids.map(node),
    edges: [...star, ...rest].sort(
      (a, b) => b.weight - a.weight || a.source - b.source || a.target - b.target,
    ),
    matches: found.slice(1).map((c) => terms[c]),
  };

  function node(c: number): ConceptMapNode {
    return {
      concept: c,
      term: terms[c],
      rank: rank[c],
      chunks: graph.table.conceptChunkOffsets[c + 1] - graph.table.conceptChunkOffsets[c],
    };
  }
}

/**
 * The `limit` concepts of highest subject score; when fewer have a score (a small library whose every word is in
 * every document), the list is filled by PageRank so the Graph view still draws `limit` concepts.
 */
function topSubjects(scores: Float64Array, rank: Float64Array, limit: number): number[] {
  const ids = topK(scores, limit).filter((c) => scores[c] > 0);
  if (ids.length < limit) {
    const listed = new Set(ids);
    for (const c of topK(rank, limit)) if (ids.length < limit && !listed.has(c)) ids.push(c);
  }
  return ids;
}

/** Concepts matching a search: exact, then prefix, then substring; best PageRank first within each. */
function matching(terms: readonly string[], rank: Float64Array, search: string, limit: number): number[] {
  const exact: number[] = [];
  const prefix: number[] = [];
  const inside: number[] = [];
  for (let c = 0; c < terms.length; c++) {
    const t = terms[c];
    if (t === search) exact.push(c);
    else if (t.startsWith(search)) prefix.push(c);
    else if (t.includes(search)) inside.push(c);
  }
  const byRank = (list: number[]): number[] => list.sort((a, b) => rank[b] - rank[a] || a - b);
  return [...exact, ...byRank(prefix), ...byRank(inside)].slice(0, limit);
}

/** The heaviest walk-graph edges among a set of concepts (each undirected edge once, source < target). */
export function edgesAmong(graph: ConceptGraphIndex, ids: Iterable<number>, limit: number): ConceptEdge[] {
  return edgesAmongRows(rowsOf(graph.graph), ids, limit);
}

/** Concept u's row of a walk graph in memory: its targets ascending and their float32 weights. */
export function rowsOf(g: ConceptGraph): (u: number) => { targets: Uint32Array; weights: Float32Array } {
  return (u) => ({
    targets: g.targets.subarray(g.offsets[u], g.offsets[u + 1]),
    weights: g.weights.subarray(g.offsets[u], g.offsets[u + 1]),
  });
}

/** edgesAmong over rows read one concept at a time (in memory, or by ranges: src/core/paged). */
export function edgesAmongRows(
  row: (u: number) => { targets: ArrayLike<number>; weights: ArrayLike<number> },
  ids: Iterable<number>,
  limit: number,
): ConceptEdge[] {
  const set = new Set(ids);
  const out: ConceptEdge[] = [];
  for (const u of set) {
    const { targets, weights } = row(u);
    for (let e = 0; e < targets.length; e++) {
      const v = targets[e];
      if (v > u && set.has(v)) out.push({ source: u, target: v, weight: weights[e] });
    }
  }
  out.sort((a, b) => b.weight - a.weight || a.source - b.source || a.target - b.target);
  return out.slice(0, limit);
}

/** The focus's edges to its picked neighbours (row positions `picked`), at most `cap`, lower id first. */
export function starEdges(
  focus: number,
  neighbours: readonly number[],
  picked: readonly number[],
  weights: ArrayLike<number>,
  cap: number,
): ConceptEdge[] {
  return picked
    .map((i, j) => ({
      source: Math.min(focus, neighbours[j]),
      target: Math.max(focus, neighbours[j]),
      weight: weights[i],
    }))
    .slice(0, cap);
}
