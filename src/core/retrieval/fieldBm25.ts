// BM25F over a chunk's text and its heading path (document › heading › subheading), the heading counting as
// `copies` extra copies of its words: the lexical evidence of the default mode. It reads the text's own BM25 index
// and a small index of the headings, and merges the two per question term, instead of indexing every chunk's text a
// second time with its headings appended: that second index held all the text's postings and term map again, and
// opening a library built it term by term (a cold `cli ask` on a 22.8 MB library peaked 28 MB lower without it).
// Scores are those of one index over text + copies × headings, to the last bit (fieldBm25.test.ts).
import type { Bm25Index } from './bm25.ts';
import { addQueryScores, type FieldScoring } from './fieldScoring.ts';
import { topK } from './topk.ts';
import type { Candidate } from './types.ts';

export class HeadingFieldBm25 {
  private readonly lengths: Float32Array;
  private readonly avgLength: number;
  private readonly scores: Float32Array;

  /** `text` and `headings` index the same chunks in the same order (a chunk without a heading adds no terms). */
  constructor(
    private readonly text: Bm25Index,
    readonly headings: Bm25Index,
    readonly copies: number,
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    if (headings.chunkCount !== text.chunkCount)
      throw new Error(`bm25f: ${headings.chunkCount} heading entries for ${text.chunkCount} chunks`);
    const n = text.chunkCount;
    this.lengths = new Float32Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) {
      this.lengths[k] = text.lengthOf(k) + copies * headings.lengthOf(k);
      total += this.lengths[k];
    }
    this.avgLength = n ? total / n : 0;
    this.scores = new Float32Array(n);
  }

  /** Scores every chunk whose text or heading holds a query term (each distinct term once); the best `limit`. */
  search(queryTerms: readonly string[], limit: number): Candidate[] {
    const { scores, lengths, k1, b, copies } = this;
    const n = this.text.chunkCount;
    const norm = this.avgLength || 1;
    const scoring: FieldScoring = {
      copies,
      n,
      nOf: this.text.scriptChunks && ((t) => this.text.chunkCountOf(t)),
      lengths,
      norm,
      k1,
      b,
    };
    const touched: number[] = [];
    addQueryScores(
      queryTerms,
      (term) => [this.text.postingsOf(term), this.headings.postingsOf(term)],
      scoring,
      scores,
      touched,
    );
    const best = topK(scores, limit, touched).map((k) => ({ chunk: k, score: scores[k] }));
    for (const k of touched) scores[k] = 0;
    return best;
  }
}
