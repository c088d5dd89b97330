// What the concept walk and its lexical evidence read of the concept table, as questions over one concept or one
// chunk at a time. An engine in memory answers them from the table's CSR arrays (views, no copy); a library read by
// ranges (src/core/paged) answers them from the blocks a question fetched. The `ppr` search is written once against
// this, so both rank the same chunks with the same scores.
import type { ConceptTable } from '../graph/index.ts';

/** The chunks of one concept (ascending chunk index), with tf(c, k) and the concept's share of each chunk. */
export interface ConceptChunks {
  chunks: Uint32Array;
  tf: Float32Array;
  shares: Float32Array;
}

export interface ConceptAccess {
  readonly chunkCount: number;
  /** Mean number of concepts per chunk (the chunk length of the concept BM25). */
  readonly meanChunkConcepts: number;
  idf(c: number): number;
  /** Number of chunks holding concept c. */
  df(c: number): number;
  chunksOf(c: number): ConceptChunks;
  /** Concepts of chunk k, ascending concept id. */
  conceptsOf(k: number): Uint32Array;
  /** Number of concepts of chunk k (its length in the concept BM25 and the walk's length normalization). */
  conceptCount(k: number): number;
}

/** Term → concept id (a Map in memory; a sorted dictionary read by blocks in a paged library). */
export interface TermLookup {
  get(term: string): number | undefined;
  has(term: string): boolean;
}

/**
 * tf(c, k) aligned with table.conceptChunks (concept-major), recovered from the chunk-major TF-IDF weights (tf·idf);
 * concepts in every chunk (idf 0) count tf 1.
 */
export function conceptChunkTf(t: ConceptTable): Float32Array {
  const cached = tfCache.get(t);
  if (cached) return cached;
  const tf = new Float32Array(t.conceptChunks.length);
  const fill = t.conceptChunkOffsets.slice(0, t.terms.length);
  for (let k = 0; k < t.chunkCount; k++) {
    for (let j = t.chunkConceptOffsets[k]; j < t.chunkConceptOffsets[k + 1]; j++) {
      const c = t.chunkConcepts[j];
      const idf = t.idf[c];
      tf[fill[c]++] = idf > 0 ? Math.max(1, Math.round(t.chunkConceptWeights[j] / idf)) : 1;
    }
  }
  tfCache.set(t, tf);
  return tf;
}
// One tf array per concept table (the lexical evidence of every query reads it; tables are immutable).
const tfCache = new WeakMap<ConceptTable, Float32Array>();

/**
 * share(c, k) = tf(c, k)^α / Σ over T(c) of tf^α, divided by |T(c)|^(power−1) so that α = 0 gives the prototype's
 * 1/|T(c)|^power. tf is recovered from the TF-IDF weight (tf·idf); concepts in every chunk (idf 0) count tf 1.
 */
export function conceptChunkShares(t: ConceptTable, alpha: number, power: number): Float32Array {
  const tf = conceptChunkTf(t);
  const out = new Float32Array(tf.length);
  for (let c = 0; c < t.terms.length; c++) {
    sharesOfCounts(tf, t.conceptChunkOffsets[c], t.conceptChunkOffsets[c + 1], alpha, power, out);
  }
  return out;
}

/**
 * One concept's shares of its chunks, `tf[a..b)` → `out[a..b)`: tf^α / (Σ tf^α · df^(power − 1)), the sum in
 * float64 in list order. The paged index computes its lists' shares with this same function (pages version 3 stores
 * the counts only), so a walk by ranges weighs each chunk as the engine in memory does, bit for bit.
 */
export function sharesOfCounts(
  tf: Float32Array,
  a: number,
  b: number,
  alpha: number,
  power: number,
  out: Float32Array,
): void {
  let sum = 0;
  for (let i = a; i < b; i++) sum += Math.pow(tf[i], alpha);
  const scale = 1 / (sum * Math.pow(b - a, power - 1));
  for (let i = a; i < b; i++) out[i] = Math.pow(tf[i], alpha) * scale;
}

/** The concept table of an engine in memory, read through views of its arrays. */
export class TableAccess implements ConceptAccess {
  readonly chunkCount: number;
  readonly meanChunkConcepts: number;
  private readonly tf: Float32Array;

  constructor(
    readonly table: ConceptTable,
    readonly shares: Float32Array,
  ) {
    this.chunkCount = table.chunkCount;
    this.meanChunkConcepts = table.chunkCount
      ? table.chunkConceptOffsets[table.chunkCount] / table.chunkCount
      : 1;
    this.tf = conceptChunkTf(table);
  }

  idf(c: number): number {
    return this.table.idf[c];
  }

  df(c: number): number {
    return this.table.conceptChunkOffsets[c + 1] - this.table.conceptChunkOffsets[c];
  }

  chunksOf(c: number): ConceptChunks {
    const a = this.table.conceptChunkOffsets[c];
    const b = this.table.conceptChunkOffsets[c + 1];
    return {
      chunks: this.table.conceptChunks.subarray(a, b),
      tf: this.tf.subarray(a, b),
      shares: this.shares.subarray(a, b),
    };
  }

  conceptCount(k: number): number {
    return this.table.chunkConceptOffsets[k + 1] - this.table.chunkConceptOffsets[k];
  }

  conceptsOf(k: number): Uint32Array {
    return this.table.chunkConcepts.subarray(
      this.table.chunkConceptOffsets[k],
      this.table.chunkConceptOffsets[k + 1],
    );
  }
}
