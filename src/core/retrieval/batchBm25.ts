// BM25 (and BM25F over the text and its heading copies) of a library read batch by batch, in memory bounded by the
// batch and the answer's length: a large library whose pages are not written yet is not loaded into memory
// (src/services/library/storedPages.ts), so a question meanwhile is scored over its stored chunks as they stream by.
// A first pass counts what the IDF and the length norm need (the chunks, their lengths, the question terms'
// document frequencies); a second scores each batch through addFieldTermScores (the engine's and the pages' own
// arithmetic, given the library's document frequencies) and keeps the best `limit`, so the ranking is the one the
// whole library's index gives, to the last bit (batchBm25.test.ts).
import { addFieldTermScores, type FieldScoring, type PostingList } from './fieldBm25.ts';
import { topK } from './topk.ts';

/** One chunk's analysed terms: its text's and its heading path's (empty without headings). */
export interface ChunkTerms {
  text: readonly string[];
  heading: readonly string[];
}

export interface BatchBm25Options {
  /** Heading copies (0: plain BM25 over the text, the `bm25` mode; RetrievalParams.headingWeight for BM25F). */
  copies: number;
  k1: number;
  b: number;
  signal?: AbortSignal;
  /** Called with each batch's size and the items kept so far, as the second pass reads them (for tests). */
  onBatch?: (batch: number, kept: number) => void;
}

/** An item of the library with its score, and its place in the reading order (ties go to the earlier, as topK). */
export interface Scored<T> {
  item: T;
  score: number;
  order: number;
}

/** What the first pass counts: the library's chunks, their total length, and each question term's chunks. */
export interface LibraryWordStats {
  chunks: number;
  totalLength: number;
  df: Map<string, number>;
}

/**
 * The best `limit` items of the library for the question's terms, best first, read twice through `batches` (the
 * same items in the same order both times give the whole index's ranking; a drop that stores documents between the
 * passes only has them scored with the first pass's counts). `termsOf` analyses an item (called once per pass).
 */
export async function searchByBatches<T>(
  batches: () => AsyncIterable<readonly T[]>,
  termsOf: (item: T) => ChunkTerms,
  queryTerms: readonly string[],
  limit: number,
  options: BatchBm25Options,
): Promise<{ best: Scored<T>[]; stats: LibraryWordStats }> {
  const terms = [...new Set(queryTerms)];
  const wanted = new Set(terms);
  const { copies, signal } = options;
  const stats: LibraryWordStats = { chunks: 0, totalLength: 0, df: new Map(terms.map((t) => [t, 0])) };
  for await (const batch of batches()) {
    signal?.throwIfAborted();
    for (const item of batch) {
      const { text, heading } = termsOf(item);
      stats.chunks++;
      stats.totalLength += text.length + copies * heading.length;
      // A chunk counts once for a term in its text or (with copies) its heading: the union addFieldTermScores counts.
      const seen = new Set<string>();
      for (const t of text) if (wanted.has(t)) seen.add(t);
      if (copies > 0) for (const t of heading) if (wanted.has(t)) seen.add(t);
      for (const t of seen) stats.df.set(t, stats.df.get(t)! + 1);
    }
  }
  const matched = terms.filter((t) => stats.df.get(t)! > 0);
  let best: Scored<T>[] = [];
  if (matched.length === 0 || limit <= 0) return { best, stats };
  const avg = stats.chunks ? stats.totalLength / stats.chunks : 0;
  let order = 0;
  for await (const batch of batches()) {
    signal?.throwIfAborted();
    const { scores, touched } = scoreBatch(batch.map(termsOf), matched, stats, avg || 1, options);
    const top = topK(scores, limit, touched).map((k) => ({
      item: batch[k],
      score: scores[k],
      order: order + k,
    }));
    best = mergeBest(best, top, limit);
    order += batch.length;
    options.onBatch?.(batch.length, best.length);
  }
  return { best, stats };
}

/** One batch's scores (by place in the batch) with the library's statistics. */
function scoreBatch(
  chunks: readonly ChunkTerms[],
  terms: readonly string[],
  stats: LibraryWordStats,
  norm: number,
  { copies, k1, b }: BatchBm25Options,
): { scores: Float32Array; touched: number[] } {
  const n = chunks.length;
  const lengths = new Float32Array(n);
  chunks.forEach((c, k) => (lengths[k] = c.text.length + copies * c.heading.length));
  const scoring: FieldScoring = { copies, n: stats.chunks, lengths, norm, k1, b };
  const scores = new Float32Array(n);
  const touched: number[] = [];
  for (const term of terms) {
    const inText = postings(chunks, term, (c) => c.text);
    const inHeading = copies > 0 ? postings(chunks, term, (c) => c.heading) : undefined;
    addFieldTermScores(inText, inHeading, scoring, scores, touched, stats.df.get(term));
  }
  return { scores, touched };
}

/** A term's postings within the batch (ascending places, counts), or undefined when no chunk of it holds the term. */
function postings(
  chunks: readonly ChunkTerms[],
  term: string,
  field: (c: ChunkTerms) => readonly string[],
): PostingList | undefined {
  const at: number[] = [];
  const freqs: number[] = [];
  chunks.forEach((c, k) => {
    let tf = 0;
    for (const t of field(c)) if (t === term) tf++;
    if (tf > 0) {
      at.push(k);
      freqs.push(Math.min(tf, 65535));
    }
  });
  return at.length ? { chunks: Uint32Array.from(at), freqs: Uint16Array.from(freqs) } : undefined;
}

/** The best `limit` of two lists sorted best first (ties: the earlier in the library first). */
function mergeBest<T>(a: readonly Scored<T>[], b: readonly Scored<T>[], limit: number): Scored<T>[] {
  return [...a, ...b].sort((x, y) => y.score - x.score || x.order - y.order).slice(0, limit);
}
