// Okapi BM25 over the analysed terms of every chunk (k1 = 1.2, b = 0.75 by default): the lexical baseline and a
// fusion partner. Postings are CSR typed arrays; a query touches only its terms' postings.
import type { Candidate } from './types.ts';
import { topK } from './topk.ts';

export class Bm25Index {
  private readonly termIds = new Map<string, number>();
  private readonly offsets: Uint32Array;
  private readonly postings: Uint32Array;
  private readonly freqs: Uint16Array;
  private readonly lengths: Float32Array;
  private readonly avgLength: number;
  private readonly scores: Float32Array;
  readonly chunkCount: number;

  constructor(
    chunkTerms: readonly (readonly string[])[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    if (!(k1 >= 0) || !(b >= 0 && b <= 1))
      throw new Error(`bm25: need k1 ≥ 0 and b in [0, 1], got ${k1}, ${b}`);
    this.chunkCount = chunkTerms.length;
    this.lengths = new Float32Array(this.chunkCount);
    const perChunk: Map<number, number>[] = [];
    const df: number[] = [];
    let total = 0;
    chunkTerms.forEach((terms, k) => {
      this.lengths[k] = terms.length;
      total += terms.length;
      const counts = new Map<number, number>();
      for (const t of terms) {
        let id = this.termIds.get(t);
        if (id === undefined) {
          id = df.length;
          this.termIds.set(t, id);
          df.push(0);
        }
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      for (const id of counts.keys()) df[id]++;
      perChunk.push(counts);
    });
    this.avgLength = this.chunkCount ? total / this.chunkCount : 0;
    this.offsets = new Uint32Array(df.length + 1);
    for (let t = 0; t < df.length; t++) this.offsets[t + 1] = this.offsets[t] + df[t];
    this.postings = new Uint32Array(this.offsets[df.length]);
    this.freqs = new Uint16Array(this.offsets[df.length]);
    const fill = this.offsets.slice(0, df.length);
    perChunk.forEach((counts, k) => {
      for (const [id, tf] of counts) {
        this.postings[fill[id]] = k;
        this.freqs[fill[id]++] = Math.min(tf, 65535);
      }
    });
    this.scores = new Float32Array(this.chunkCount);
  }

  /** Robertson–Spärck Jones IDF with +1 inside the log (never negative, as in Lucene). */
  idf(term: string): number {
    const id = this.termIds.get(term);
    if (id === undefined) return 0;
    const df = this.offsets[id + 1] - this.offsets[id];
    return Math.log(1 + (this.chunkCount - df + 0.5) / (df + 0.5));
  }

  /** Scores every chunk containing a query term (each distinct term once) and returns the best `limit`. */
  search(queryTerms: readonly string[], limit: number): Candidate[] {
    const { scores, offsets, postings, freqs, lengths, k1, b } = this;
    const touched: number[] = [];
    for (const term of new Set(queryTerms)) {
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      const w = this.idf(term);
      for (let i = offsets[id]; i < offsets[id + 1]; i++) {
        const k = postings[i];
        const tf = freqs[i];
        if (scores[k] === 0) touched.push(k);
        scores[k] += (w * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[k]) / (this.avgLength || 1)));
      }
    }
    const best = topK(scores, limit, touched).map((k) => ({ chunk: k, score: scores[k] }));
    for (const k of touched) scores[k] = 0;
    return best;
  }
}
