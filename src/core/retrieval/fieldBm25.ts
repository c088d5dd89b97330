// BM25F over a chunk's text and its heading path (document › heading › subheading), the heading counting as
// `copies` extra copies of its words: the lexical evidence of the default mode. It reads the text's own BM25 index
// and a small index of the headings, and merges the two per question term, instead of indexing every chunk's text a
// second time with its headings appended: that second index held all the text's postings and term map again, and
// opening a library built it term by term (a cold `cli ask` on a 22.8 MB library peaked 28 MB lower without it).
// Scores are those of one index over text + copies × headings, to the last bit (fieldBm25.test.ts).
import { STEM_PREFIX } from '../graph/index.ts';
import type { Bm25Index } from './bm25.ts';
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
    const scoring: FieldScoring = { copies, n, lengths, norm, k1, b };
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

const EMPTY = new Uint32Array(0);

export interface PostingList {
  chunks: Uint32Array;
  freqs: Uint16Array;
}

/** What one term's BM25F score over the chunks reads besides its postings. */
export interface FieldScoring {
  /** Heading copies (0: plain BM25 over the text). */
  copies: number;
  /** Chunks in the library. */
  n: number;
  /** Per chunk: text length + copies × heading length, and their mean (1 when 0). */
  lengths: Float32Array;
  norm: number;
  k1: number;
  b: number;
}

/**
 * Adds one query term's BM25F score to every chunk whose text or heading holds it, noting each chunk scored for the
 * first time in `touched`. Shared by the engine (HeadingFieldBm25), the library read by ranges (paged/library.ts)
 * and the stored chunks scored batch by batch (batchBm25.ts), so all three rank to the last bit. `libraryDf`: the
 * term's document frequency over the whole library when the postings given are one batch of it (the IDF is the
 * library's, not the batch's); absent, the postings are the whole library's and give it.
 */
function addFieldTermScores(
  inText: PostingList | undefined,
  inHeading: PostingList | undefined,
  { copies, n, lengths, norm, k1, b }: FieldScoring,
  scores: Float32Array,
  touched: number[],
  libraryDf?: number,
  weight = 1,
  skip?: ReadonlySet<number>,
): void {
  if (!inText && !inHeading) return;
  // The union of the two ascending posting lists: its size is the term's document frequency in the fields.
  const chunks: number[] = [];
  const tfs: number[] = [];
  const a = inText?.chunks ?? EMPTY;
  const h = inHeading?.chunks ?? EMPTY;
  let i = 0;
  let j = 0;
  while (i < a.length || j < h.length) {
    const k = j >= h.length || (i < a.length && a[i] < h[j]) ? a[i] : h[j];
    let tf = 0;
    if (i < a.length && a[i] === k) tf += inText!.freqs[i++];
    if (j < h.length && h[j] === k) tf += copies * inHeading!.freqs[j++];
    chunks.push(k);
    tfs.push(Math.min(tf, 65535));
  }
  const df = libraryDf ?? chunks.length;
  const w = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  for (let x = 0; x < chunks.length; x++) {
    const k = chunks[x];
    if (skip?.has(k)) continue;
    const tf = tfs[x];
    if (scores[k] === 0) touched.push(k);
    const s = (w * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * lengths[k]) / norm));
    scores[k] += weight === 1 ? s : weight * s;
  }
}

/**
 * What a stem adds, relative to its word as written, for the passages that hold another form of it ("watcher"
 * for a question's "watchers"). Below 1 so that the question's own form ranks first; measured on the shared Vue
 * docs (docs/results/retrieval-stemming.md).
 */
const STEM_WEIGHT = 0.5;

/**
 * Adds a question's BM25(F) scores (its distinct terms, in order): a word as written as always; a stem (STEM_PREFIX,
 * analyser version 2, right after its word) at STEM_WEIGHT and only for the chunks its word did not reach, so each
 * question word counts once per chunk, fully where the chunk uses its very form. `lists` gives a term's text and
 * heading postings; `dfOf` the library's document frequency where the postings are a batch of it (batchBm25.ts).
 */
export function addQueryScores(
  queryTerms: readonly string[],
  lists: (term: string) => [PostingList | undefined, PostingList | undefined],
  scoring: FieldScoring,
  scores: Float32Array,
  touched: number[],
  dfOf?: (term: string) => number | undefined,
): void {
  const terms = [...new Set(queryTerms)];
  let reached: Set<number> | undefined;
  terms.forEach((term, i) => {
    const [inText, inHeading] = lists(term);
    const isStem = term.startsWith(STEM_PREFIX);
    addFieldTermScores(
      inText,
      inHeading,
      scoring,
      scores,
      touched,
      dfOf?.(term),
      isStem ? STEM_WEIGHT : 1,
      isStem ? reached : undefined,
    );
    reached = undefined;
    if (!isStem && terms[i + 1]?.startsWith(STEM_PREFIX)) {
      reached = new Set(inText?.chunks);
      if (inHeading && scoring.copies > 0) for (const k of inHeading.chunks) reached.add(k);
    }
  });
}
