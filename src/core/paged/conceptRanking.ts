// `concept` mode over a paged index: the candidates the engine's conceptSearch (src/core/retrieval/conceptSearch.ts)
// gives a library without vectors, reading only what they need. The engine walks the concept graph two hops out
// from the question's concepts and ranks every chunk of every concept it reached by BM25; over pages that walk would
// read most of the rows and lists (two hops from a hub reach nearly every concept). Here the ranking goes the other
// way: the chunks in the order the engine ranks its pool (BM25 hits best first, then the others in page order), each
// kept when one of its concepts is within two hops. A concept is one hop out when a direct concept's row names it,
// two when its own row names a one-hop concept (the walk graph is undirected), so only the direct concepts' rows and
// those of the few concepts of chunks looked at that are neither are read.
import { localStep, type Candidate, type RetrievalParams } from '../retrieval/index.ts';

/** What the ranking reads of a paged library; undefined while a block is missing (noted for the next round). */
export interface ConceptReads {
  chunkCount: number;
  /** The question's concepts that the library has, by term (questionTerms over the dictionary). */
  questionConcepts: readonly number[];
  idf(c: number): number;
  /** BM25 of every chunk holding a question word, best first (ties by page order): the engine's similarity. */
  words: readonly Candidate[];
  chunksOf(c: number): Uint32Array | undefined;
  conceptsOf(k: number): Uint32Array | undefined;
  /** Concept c's neighbours in the walk graph. */
  row(c: number): Uint32Array | undefined;
}

type Params = Pick<RetrievalParams, 'conceptTopK' | 'conceptHops' | 'conceptChunksPerConcept'>;

/** The `concept` candidates, as conceptSearch ranks them without vectors; partial while a read is missing. */
export function rankConcepts(reads: ConceptReads, params: Params, limit: number): Candidate[] {
  if (params.conceptHops > 2) throw new Error('concept ranking by ranges: at most two hops');
  const sim = new Map<number, number>();
  for (const { chunk, score } of reads.words) sim.set(chunk, score);
  const score = (k: number) => sim.get(k) ?? 0;
  // The direct concepts: the question's own, by IDF (conceptSearch's directConcepts without vectors).
  const weight = (c: number) => reads.idf(c) + 1e-9;
  const direct = [...new Set(reads.questionConcepts)]
    .sort((a, b) => weight(b) - weight(a) || a - b)
    .slice(0, params.conceptTopK);
  // Their rows are noted now, with their lists: the global step needs them after the local one.
  const hops = new Hops(reads, direct, params.conceptHops);
  const taken = new Set<number>();
  const out = localStep(direct, reads.chunksOf, score, params.conceptChunksPerConcept, limit, taken);
  if (!out) return [];
  if (out.length >= limit || direct.length === 0) return out;
  // Global step: the chunks not taken in the engine's pool order, each kept with its concept closest in hops.
  let unread = 0;
  const consider = (k: number): boolean => {
    if (taken.has(k)) return false;
    const concepts = reads.conceptsOf(k);
    const via = concepts && hops.closest(concepts);
    if (via === undefined) unread++;
    else if (via) out.push({ chunk: k, score: score(k), concepts: [via.concept], hop: via.hop });
    // Enough chunks looked at to fill the rest once what is unread is read: the next round goes on from there.
    return out.length + unread >= limit;
  };
  for (const { chunk } of reads.words) if (consider(chunk)) return out;
  for (let k = 0; k < reads.chunkCount; k++) if (!sim.has(k) && consider(k)) return out;
  return out;
}

/**
 * The concepts' hops from the direct concepts, levels 0 to `depth`: level 1 from the direct concepts' rows, level 2
 * from a concept's own row, read only when a chunk has no concept nearer.
 */
class Hops {
  private readonly zero: Set<number>;
  /** Undefined while a direct concept's row is unread. */
  private readonly one: Set<number> | undefined;
  private readonly two = new Map<number, boolean>();

  constructor(
    private readonly reads: ConceptReads,
    direct: readonly number[],
    private readonly depth: number,
  ) {
    this.zero = new Set(direct);
    let one: Set<number> | undefined = new Set();
    for (const d of depth >= 1 ? direct : []) {
      const row = reads.row(d);
      if (!row) one = undefined;
      else for (const v of row) if (!this.zero.has(v)) one?.add(v);
    }
    this.one = one;
  }

  /**
   * A chunk's first concept (ascending ids) at the fewest hops, as conceptSearch's provenance picks it: null when
   * none is within reach, undefined while a row it needs is unread.
   */
  closest(concepts: Uint32Array): { concept: number; hop: number } | null | undefined {
    for (const c of concepts) if (this.zero.has(c)) return { concept: c, hop: 0 };
    if (this.depth < 1) return null;
    if (!this.one) return undefined;
    for (const c of concepts) if (this.one.has(c)) return { concept: c, hop: 1 };
    if (this.depth < 2) return null;
    let unread = false;
    for (const c of concepts) {
      const near = this.twoHops(c);
      if (near === undefined) unread = true;
      else if (near) return unread ? undefined : { concept: c, hop: 2 };
    }
    return unread ? undefined : null;
  }

  /** Whether concept c (not within one hop) has a one-hop neighbour; undefined while its row is unread. */
  private twoHops(c: number): boolean | undefined {
    let near = this.two.get(c);
    if (near !== undefined) return near;
    const row = this.reads.row(c);
    if (!row) return undefined;
    near = row.some((v) => this.one!.has(v));
    this.two.set(c, near);
    return near;
  }
}
