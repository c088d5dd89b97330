// Dense retrieval over chunk vectors by brute-force Float32 dot products (unit vectors: dot = cosine). Measured
// faster than voy-search for these corpus sizes (see C-readme.md), and it needs no WASM.
import type { Candidate } from './types.ts';
import { topK } from './topk.ts';

export class DenseIndex {
  private readonly scores: Float32Array;
  readonly count: number;

  constructor(
    readonly vectors: Float32Array,
    readonly dimension: number,
  ) {
    if (!(dimension > 0) || vectors.length % dimension !== 0) {
      throw new Error(`dense index: ${vectors.length} floats is not a whole number of ${dimension}-d rows`);
    }
    this.count = vectors.length / dimension;
    this.scores = new Float32Array(this.count);
  }

  /** Cosine of the query with every row (the scores array is reused: copy it if you keep it). */
  scoreAll(query: Float32Array): Float32Array {
    if (query.length !== this.dimension) {
      throw new Error(`dense index: query has ${query.length} dimensions, index has ${this.dimension}`);
    }
    const { vectors, dimension: dim, scores } = this;
    for (let r = 0, o = 0; r < this.count; r++, o += dim) {
      let s = 0;
      for (let d = 0; d < dim; d++) s += vectors[o + d] * query[d];
      scores[r] = s;
    }
    return scores;
  }

  search(query: Float32Array, limit: number): Candidate[] {
    const scores = this.scoreAll(query);
    // topK keeps positive scores only; shift so that every row is a candidate.
    const shifted = new Float32Array(scores.length);
    for (let i = 0; i < scores.length; i++) shifted[i] = scores[i] + 2;
    return topK(shifted, limit).map((r) => ({ chunk: r, score: scores[r] }));
  }
}
