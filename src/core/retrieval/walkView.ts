// What the concept-graph view draws for a question: the neighbourhood of the `ppr` walk, bounded. The walk is the
// engine's own (RetrievalEngine.pprWithWalk), so the evidence drawn is the evidence the Ask view ranks. On a large
// library the walk touches tens of thousands of concepts; the view keeps the question's seeds, the concepts that
// carried the most mass, the strongest edges among them and the chunks they led to, each under a cap.
import { edgesAmong } from './conceptMap.ts';
import type { RetrievalEngine } from './engine.ts';
import type { FinalWalk } from './pprSearch.ts';
import { topK } from './topk.ts';
import type { Query } from './types.ts';

/** Caps on what is drawn: the view never grows with the library. */
export interface WalkViewCaps {
  /** Question seeds drawn (the heaviest restart weights). */
  seeds: number;
  /** Concepts beyond the seeds, by PPR mass (plus at most one bridge concept per evidence chunk, see below). */
  concepts: number;
  /** Evidence chunks drawn: the top of the ranking. */
  evidence: number;
  /** Chunks listed per drawn concept (what "click a concept" shows; not all of them are drawn). */
  chunksPerConcept: number;
  /** Concept–concept edges drawn (the heaviest among the drawn concepts). */
  edges: number;
}

const WALK_VIEW_CAPS: Readonly<WalkViewCaps> = Object.freeze({
  seeds: 12,
  concepts: 24,
  evidence: 10,
  chunksPerConcept: 5,
  edges: 120,
});

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
  edges: Array<{ source: number; target: number; weight: number }>;
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
  const cap = { ...WALK_VIEW_CAPS, ...caps };
  let view: WalkView | undefined;
  const ranked = engine.pprWithWalk(query, Math.max(1, cap.evidence), (walk) => {
    view = buildView(walk, cap, engine.chunkIds);
  });
  if (view) return view;
  // No concept of the question is in the graph: the ranking came from the words alone, and there was no walk.
  return {
    seeds: [],
    concepts: [],
    edges: [],
    chunks: ranked.slice(0, cap.evidence).map((c, rank) => ({
      chunk: c.chunk,
      chunkId: engine.chunkIds[c.chunk],
      rank,
      score: c.score,
      words: c.score,
    })),
    links: [],
    touched: 0,
  };
}

function buildView(walk: FinalWalk, cap: WalkViewCaps, chunkIds: readonly string[]): WalkView {
  const { ctx, nodes, scores, questionSeeds, seeds: restart } = walk;
  const graph = ctx.graph;
  const shares = ctx.shares;
  // The view is drawn from an engine in memory (a library read by ranges answers questions, not the Graph view).
  if (!graph || !shares)
    throw new Error('graph view: this library is read by ranges and has no graph in memory');
  const t = graph.table;
  const power = ctx.params.chunkLengthPower;
  const contribution = (c: number, j: number, k: number): number => {
    const size = t.chunkConceptOffsets[k + 1] - t.chunkConceptOffsets[k];
    return (scores[c] * shares[j]) / (power !== 0 ? Math.pow(Math.max(1, size), power) : 1);
  };

  const words = new Set(walk.questionTerms);
  // Seeds: the heaviest restart weights of the question (ties by concept id).
  const seedList = [...questionSeeds]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, cap.seeds)
    .map(([concept, weight]) => ({
      concept,
      term: t.terms[concept],
      mass: scores[concept],
      weight,
      fromWords: words.has(t.terms[concept]),
    }));
  const drawn = new Set(seedList.map((s) => s.concept));

  // Mass concepts: the heaviest touched concepts not drawn as seeds (a seed past the seed cap may come back here).
  const nonSeeds = Array.from(nodes).filter((c) => !drawn.has(c));
  const massIds = topK(scores, cap.concepts, nonSeeds);
  const concepts = massIds.map((c) => ({
    concept: c,
    term: t.terms[c],
    mass: scores[c],
    feedback: restart.has(c),
  }));
  for (const c of massIds) drawn.add(c);

  const evidence = walk.ranked.slice(0, cap.evidence);
  const chunks: WalkViewChunk[] = evidence.map((k, rank) => ({
    chunk: k,
    chunkId: chunkIds[k],
    rank,
    score: walk.chunkScore(k),
    words: walk.words.get(k) ?? 0,
  }));
  const chunkIndex = new Map(chunks.map((ch, i) => [ch.chunk, i]));
  const links: WalkViewLink[] = [];

  // Every evidence chunk gets its links to the drawn concepts, or brings in its strongest concept as a bridge.
  for (const k of evidence) {
    let bestConcept = -1;
    let best = 0;
    let linked = false;
    for (let j = t.chunkConceptOffsets[k]; j < t.chunkConceptOffsets[k + 1]; j++) {
      const c = t.chunkConcepts[j];
      if (!(scores[c] > 0)) continue;
      const w = contributionOf(c, k);
      if (drawn.has(c)) linked = true;
      if (w > best || (w === best && c < bestConcept)) [best, bestConcept] = [w, c];
    }
    if (!linked && bestConcept >= 0) {
      drawn.add(bestConcept);
      concepts.push({
        concept: bestConcept,
        term: t.terms[bestConcept],
        mass: scores[bestConcept],
        feedback: restart.has(bestConcept),
      });
    }
  }

  // Per drawn concept: its strongest chunks (listed), and a link to every evidence chunk it holds (drawn).
  for (const c of drawn) {
    const own: Array<[number, number]> = [];
    for (let j = t.conceptChunkOffsets[c]; j < t.conceptChunkOffsets[c + 1]; j++) {
      const k = t.conceptChunks[j];
      own.push([k, contribution(c, j, k)]);
    }
    own.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const listed = own.slice(0, cap.chunksPerConcept);
    for (const e of own.slice(cap.chunksPerConcept)) if (chunkIndex.has(e[0])) listed.push(e);
    for (const [k, gave] of listed) {
      if (!chunkIndex.has(k)) {
        chunkIndex.set(k, chunks.length);
        const words = walk.words.get(k) ?? 0;
        chunks.push({ chunk: k, chunkId: chunkIds[k], rank: -1, score: walk.chunkScore(k), words });
      }
      links.push({ concept: c, chunk: k, contribution: gave });
    }
  }
  links.sort((a, b) => a.concept - b.concept || b.contribution - a.contribution || a.chunk - b.chunk);

  return {
    seeds: seedList,
    concepts,
    edges: edgesAmong(graph, drawn, cap.edges),
    chunks,
    links,
    touched: nodes.length,
  };

  function contributionOf(c: number, k: number): number {
    // T(c) is ascending (chunks are added in index order), so the share's slot is found by binary search.
    let lo = t.conceptChunkOffsets[c];
    let hi = t.conceptChunkOffsets[c + 1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = t.conceptChunks[mid];
      if (v === k) return contribution(c, mid, k);
      if (v < k) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }
}
