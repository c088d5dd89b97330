// The BM25F arithmetic every lexical ranker shares: one query term's score over a chunk's text and heading
// postings, and a question's terms with their stems. Kept apart from the rankers (bm25.ts, fieldBm25.ts, batchBm25.ts,
// paged/library.ts) so each imports it and none imports another's for it.
import { STEM_PREFIX } from '../graph/index.ts';

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
  /** A term's N where the library counts its words per script (text/scripts.ts); absent: `n` for every term. */
  nOf?: (term: string) => number;
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
  { copies, lengths, norm, k1, b }: FieldScoring,
  n: number,
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
  // A script's N counts the chunks whose text holds a term of it; a heading may add chunks beyond them (never more
  // than all of them with one N, so there this is n).
  const w = Math.log(1 + (Math.max(n, df) - df + 0.5) / (df + 0.5));
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
      scoring.nOf ? scoring.nOf(term) : scoring.n,
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
