// What the concept-graph view draws for a question: the neighbourhood of the `ppr` walk, bounded. The walk is the
// engine's own (RetrievalEngine.pprWithWalk), so the evidence drawn is the evidence the Ask view ranks. On a large
// library the walk touches tens of thousands of concepts; the view keeps the question's seeds, the concepts that
// carried the most mass, the strongest edges among them and the chunks they led to, each under a cap.
import type { ConceptGraphIndex } from '../graph/index.ts';
import { edgesAmongRows, rowsOf, type ConceptEdge } from './conceptMap.ts';
import type { RetrievalEngine } from './engine.ts';
import type { FinalWalk } from './pprSearch.ts';
import { topK } from './topk.ts';
import type { Candidate, Query } from './types.ts';

const defaultCaps = {
  /** Question seeds drawn (the heaviest restart weights). */
  seeds: 12,
  /** Concepts beyond the seeds, by PPR mass (plus at most one bridge concept per evidence chunk, see below). */
  concepts: 24,
  /** Evidence chunks drawn: the top of the ranking. */
  evidence: 10,
  /** Chunks listed per drawn concept (what "click a concept" shows; not all of them are drawn). */
  chunksPerConcept: 5,
  /** Concept–concept edges drawn (the heaviest among the drawn concepts). */
  edges: 120,
};

/** Caps on what is drawn (each documented at its default above): the view never grows with the library. */
export type WalkViewCaps = typeof defaultCaps;

const WALK_VIEW_CAPS: Readonly<WalkViewCaps> = Object.freeze(defaultCaps);

interface WalkViewConcept {
  /** Concept id (index into the concept table). */
  concept: number;
  term: string;
  /** PPR mass of the concept in the final walk. */
  mass: number;
}

interface WalkViewSeed extends WalkViewConcept {
  /** Restart weight among the question's seeds (they sum to 1 before the cap). */
  weight: number;
  /** A word of the question (true) or a concept nearest its meaning (false, the embedding seeds). */
  fromWords: boolean;
}

interface WalkViewChunk {
  /** Chunk index in engine order, and its id. */
  chunk: number;
  chunkId: string;
  /** 0-based place in the `ppr` ranking, or -1 when the chunk is only listed under a concept. */
  rank: number;
  /** Final score in the walk (walk + words), and the share the question's words added. */
  score: number;
  words: number;
}

/** A concept led to a chunk: its PPR mass × its share of the chunk, after the chunk-length normalization. */
interface WalkViewLink {
  concept: number;
  chunk: number;
  contribution: number;
}

export interface WalkView {
  seeds: WalkViewSeed[];
  /** Concepts beyond the seeds, heaviest first; `feedback`: a restart concept of the second walk. */
  concepts: Array<WalkViewConcept & { feedback: boolean }>;
  /** Walk-graph edges among the drawn concepts (source < target), heaviest first. */
  edges: ConceptEdge[];
  /** Evidence chunks (rank ≥ 0) in ranking order, then chunks listed under a concept. */
  chunks: WalkViewChunk[];
  /** Every drawn concept → chunk of `chunks` it reached, strongest first per concept. */
  links: WalkViewLink[];
  /** Concepts the walk touched (what the caps cut down from). */
  touched: number;
}

/**
 * Runs the `ppr` walk for a question and returns its bounded neighbourhood. Evidence chunks are the first
 * `caps.evidence` of the same ranking as `engine.rank(query, 'ppr')`. An evidence chunk none of whose concepts is
 * drawn brings in its strongest concept (a bridge), so every piece of evidence has a path back to the walk.
 */
export function walkView(engine: RetrievalEngine, query: Query, caps: Partial<WalkViewCaps> = {}): WalkView {
  const cap = withCaps(caps);
  let view: WalkView | undefined;
  const ranked = engine.pprWithWalk(query, Math.max(1, cap.evidence), (walk) => {
    const { graph, shares } = walk.ctx;
    // The view is drawn from an engine in memory here (a library read by ranges draws its own: src/core/paged).
    if (!graph || !shares) throw new Error('graph view: this engine has no graph in memory');
    view = buildWalkView(walk, cap, memoryWalkGraph(graph, shares, engine.chunkIds));
  });
  // No concept of the question is in the graph: the ranking came from the words alone, and there was no walk.
  return view ?? wordsOnlyView(ranked, cap.evidence, (k) => engine.chunkIds[k]);
}

/** The view's caps: the defaults, with those given. */
export function withCaps(caps: Partial<WalkViewCaps> = {}): WalkViewCaps {
  return { ...WALK_VIEW_CAPS, ...caps };
}

/**
 * What the view reads of the library beside the walk: concept terms, the concept table both ways with the walk's
 * mass shares, the walk graph's rows and chunk ids. In memory (memoryWalkGraph) or read by ranges (the paged
 * library's accessors, src/core/paged/library.ts): the same arithmetic over either gives the same view.
 */
export interface WalkViewGraph {
  term(concept: number): string;
  /** Chunk k's concepts. */
  conceptsOf(chunk: number): ArrayLike<number>;
  /** Concept c's chunks, ascending, and the share of its mass each gets (aligned). */
  chunksOf(concept: number): { chunks: ArrayLike<number>; shares: ArrayLike<number> };
  /** Concept u's row of the walk graph (targets ascending, float32 weights). */
  row(concept: number): { targets: ArrayLike<number>; weights: ArrayLike<number> };
  chunkId(chunk: number): string;
}

/** The view's reads over an engine in memory. */
function memoryWalkGraph(
  graph: ConceptGraphIndex,
  shares: Float32Array,
  chunkIds: readonly string[],
): WalkViewGraph {
  const t = graph.table;
  return {
    term: (c) => t.terms[c],
    conceptsOf: (k) => t.chunkConcepts.subarray(t.chunkConceptOffsets[k], t.chunkConceptOffsets[k + 1]),
    chunksOf: (c) => {
      const a = t.conceptChunkOffsets[c];
      const b = t.conceptChunkOffsets[c + 1];
      return { chunks: t.conceptChunks.subarray(a, b), shares: shares.subarray(a, b) };
    },
    row: rowsOf(graph.graph),
    chunkId: (k) => chunkIds[k],
  };
}

/**
 * The ranking of a question whose words name no concept of the graph: no walk, the words' chunks alone (what
 * walkView and a library read by ranges draw then).
 */
export function wordsOnlyView(
  ranked: readonly Candidate[],
  evidence: number,
  chunkId: (chunk: number) => string,
): WalkView {
  return {
    seeds: [],
    concepts: [],
    edges: [],
    chunks: ranked.slice(0, evidence).map((c, rank) => ({
      chunk: c.chunk,
      chunkId: chunkId(c.chunk),
      rank,
      score: c.score,
      words: c.score,
    })),
    links: [],
    touched: 0,
  };
}

/** The view of a final walk (walkView; a library read by ranges calls it from its own walk). */
export function buildWalkView(walk: FinalWalk, cap: WalkViewCaps, g: WalkViewGraph): WalkView {
  const { ctx, nodes, scores, questionSeeds, seeds: restart } = walk;
  const power = ctx.params.chunkLengthPower;
  /** Concept c's mass given to chunk k, its share in c's list being `share`. */
  const contribution = (c: number, share: number, k: number): number => {
    const size = g.conceptsOf(k).length;
    return (scores[c] * share) / (power !== 0 ? Math.pow(Math.max(1, size), power) : 1);
  };

  const words = new Set(walk.questionTerms);
  // Seeds: the heaviest restart weights of the question (ties by concept id).
  const seedList = [...questionSeeds]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, cap.seeds)
    .map(([concept, weight]) => ({
      concept,
      term: g.term(concept),
      mass: scores[concept],
      weight,
      fromWords: words.has(g.term(concept)),
    }));
  const drawn = new Set(seedList.map((s) => s.concept));

  // Mass concepts: the heaviest touched concepts not drawn as seeds (a seed past the seed cap may come back here).
  const nonSeeds = Array.from(nodes).filter((c) => !drawn.has(c));
  const massIds = topK(scores, cap.concepts, nonSeeds);
  const drawnConcept = (c: number) => ({
    concept: c,
    term: g.term(c),
    mass: scores[c],
    feedback: restart.has(c),
  });
  const concepts = massIds.map(drawnConcept);
  for (const c of massIds) drawn.add(c);

  const evidence = walk.ranked.slice(0, cap.evidence);
  const drawnChunk = (k: number, rank: number): WalkViewChunk => ({
    chunk: k,
    chunkId: g.chunkId(k),
    rank,
    score: walk.chunkScore(k),
    words: walk.words.get(k) ?? 0,
  });
  const chunks = evidence.map(drawnChunk);
  const chunkIndex = new Map(chunks.map((ch, i) => [ch.chunk, i]));
  const links: WalkViewLink[] = [];

  // Every evidence chunk gets its links to the drawn concepts, or brings in its strongest concept as a bridge.
  for (const k of evidence) {
    let bestConcept = -1;
    let best = 0;
    let linked = false;
    const own = g.conceptsOf(k);
    for (let j = 0; j < own.length; j++) {
      const c = own[j];
      if (!(scores[c] > 0)) continue;
      const w = contributionOf(c, k);
      if (drawn.has(c)) linked = true;
      if (w > best || (w === best && c < bestConcept)) [best, bestConcept] = [w, c];
    }
    if (!linked && bestConcept >= 0) {
      drawn.add(bestConcept);
      concepts.push(drawnConcept(bestConcept));
    }
  }

  // Per drawn concept: its strongest chunks (listed), and a link to every evidence chunk it holds (drawn).
  for (const c of drawn) {
    const own: Array<[number, number]> = [];
    const list = g.chunksOf(c);
    for (let i = 0; i < list.chunks.length; i++) {
      const k = list.chunks[i];
      own.push([k, contribution(c, list.shares[i], k)]);
    }
    own.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const listed = own.slice(0, cap.chunksPerConcept);
    for (const e of own.slice(cap.chunksPerConcept)) if (chunkIndex.has(e[0])) listed.push(e);
    for (const [k, gave] of listed) {
      if (!chunkIndex.has(k)) {
        chunkIndex.set(k, chunks.length);
        chunks.push(drawnChunk(k, -1));
      }
      links.push({ concept: c, chunk: k, contribution: gave });
    }
  }
  links.sort((a, b) => a.concept - b.concept || b.contribution - a.contribution || a.chunk - b.chunk);

  return {
    seeds: seedList,
    concepts,
    edges: edgesAmongRows((u) => g.row(u), drawn, cap.edges),
    chunks,
    links,
    touched: nodes.length,
  };

  function contributionOf(c: number, k: number): number {
    // T(c) is ascending (chunks are added in index order), so the share's slot is found by binary search.
    const { chunks: list, shares } = g.chunksOf(c);
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = list[mid];
      if (v === k) return contribution(c, shares[mid], k);
      if (v < k) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }
}
