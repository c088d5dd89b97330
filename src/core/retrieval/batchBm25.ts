// BM25 (and BM25F over the text and its heading copies) of a library read batch by batch, in memory bounded by the
// batch and the chunks that hold a question word: a large library whose pages are not written yet is not loaded into
// memory (src/services/library/storedPages.ts), so a question meanwhile is scored over its stored chunks as they
// stream by. One pass counts what the IDF and the length norm need (the chunks, their lengths, the question terms'
// document frequencies) and keeps, for each chunk holding a question word, a key, its length and those words' counts;
// then those chunks are scored through addQueryScores (the engine's and the pages' own arithmetic, given the
// library's document frequencies) and the best `limit` are kept, so the ranking is the one the whole library's index
// gives, to the last bit (batchBm25.test.ts). The caller reads the records of the best again by their keys: a second
// pass over the library, to score it with the first one's counts, cost 2.1x the time in Node and 52-61 s against
// 45-51 s a question in Chromium at 100 MiB (docs/results/words-awaiting.md, "One pass over the library").
import { STEM_PREFIX } from '../graph/index.ts';
import { ScriptTally, termChunkCount, type ScriptChunks } from '../text/index.ts';
import { addQueryScores, type FieldScoring, type PostingList } from './fieldScoring.ts';
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
  /**
   * Word statistics per script (RetrievalParams.scriptStatistics): each chunk's text words are counted by script as
   * they stream by, and a term's IDF is computed against its script's chunks when the library is of two scripts,
   * as Bm25Index.countByScript gives it.
   */
  scriptStatistics?: boolean;
  signal?: AbortSignal;
  /** Called with each batch's size and how many items so far hold a question word (their keys are kept). */
  onBatch?: (batch: number, kept: number) => void;
}

/** A kept key of the library with its score, and its place in the reading order (ties go to the earlier, as topK). */
export interface Scored<K> {
  item: K;
  score: number;
  order: number;
}

/** What the pass counts: the library's chunks, their total length, and each question term's chunks. */
export interface LibraryWordStats {
  chunks: number;
  totalLength: number;
  df: Map<string, number>;
  /** The per-script chunk counts the IDFs used (scriptStatistics, a library of two scripts); absent: one N. */
  scriptChunks?: ScriptChunks;
}

/** A question term's counts in the chunks that hold it: their places among the matched chunks, ascending. */
interface TermCounts {
  text: { at: number[]; tf: number[] };
  heading: { at: number[]; tf: number[] };
}

/**
 * The best `limit` items of the library for the question's terms, best first, read once through `batches` and
 * given by `keyOf` (what the caller needs to read the item again; it is kept for every item that holds a question
 * word, the items themselves only while their batch is read). `termsOf` analyses an item.
 */
export async function searchByBatches<T, K>(
  batches: () => AsyncIterable<readonly T[]>,
  termsOf: (item: T) => ChunkTerms,
  keyOf: (item: T) => K,
  queryTerms: readonly string[],
  limit: number,
  options: BatchBm25Options,
): Promise<{ best: Scored<K>[]; stats: LibraryWordStats }> {
  const terms = [...new Set(queryTerms)];
  const slot = new Map(terms.map((t, j) => [t, j]));
  const { copies, signal } = options;
  const stats: LibraryWordStats = { chunks: 0, totalLength: 0, df: new Map(terms.map((t) => [t, 0])) };
  const counts: TermCounts[] = terms.map(() => ({ text: { at: [], tf: [] }, heading: { at: [], tf: [] } }));
  const keys: K[] = [];
  const orders: number[] = [];
  const lengths: number[] = [];
  const textTf = new Array<number>(terms.length).fill(0);
  const headingTf = new Array<number>(terms.length).fill(0);
  const tally = options.scriptStatistics ? new ScriptTally() : undefined;
  for await (const batch of batches()) {
    signal?.throwIfAborted();
    for (const item of batch) {
      const { text, heading } = termsOf(item);
      const order = stats.chunks++;
      tally?.add(text);
      // Lengths count words as written, not their stems (as Bm25Builder does).
      const length = plainCount(text) + copies * plainCount(heading);
      stats.totalLength += length;
      let any = false;
      for (const t of text) {
        const j = slot.get(t);
        if (j === undefined) continue;
        textTf[j]++;
        any = true;
      }
      if (copies > 0)
        for (const t of heading) {
          const j = slot.get(t);
          if (j === undefined) continue;
          headingTf[j]++;
          any = true;
        }
      if (!any) continue;
      const at = keys.length;
      keys.push(keyOf(item));
      orders.push(order);
      lengths.push(length);
      for (let j = 0; j < terms.length; j++) {
        // A chunk counts once for a term in its text or (with copies) its heading: the union addFieldTermScores counts.
        if (textTf[j] > 0 || headingTf[j] > 0) stats.df.set(terms[j], stats.df.get(terms[j])! + 1);
        note(counts[j].text, at, textTf[j]);
        note(counts[j].heading, at, headingTf[j]);
        textTf[j] = 0;
        headingTf[j] = 0;
      }
    }
    options.onBatch?.(batch.length, keys.length);
  }
  const scripts = tally?.counts();
  if (scripts) stats.scriptChunks = scripts;
  if (keys.length === 0 || limit <= 0) return { best: [], stats };
  const avg = stats.totalLength / stats.chunks;
  const n = stats.chunks;
  const scoring: FieldScoring = {
    copies,
    n,
    nOf: scripts && ((t) => termChunkCount(t, n, scripts)),
    lengths: Float32Array.from(lengths),
    norm: avg || 1,
    k1: options.k1,
    b: options.b,
  };
  const scores = new Float32Array(keys.length);
  const touched: number[] = [];
  addQueryScores(
    terms,
    (term) => {
      const j = slot.get(term)!;
      return [postingList(counts[j].text), copies > 0 ? postingList(counts[j].heading) : undefined];
    },
    scoring,
    scores,
    touched,
    (term) => stats.df.get(term),
  );
  const best = topK(scores, limit, touched).map((k) => ({
    item: keys[k],
    score: scores[k],
    order: orders[k],
  }));
  return { best, stats };
}

/** The terms of a list that are words as written (not stems). */
function plainCount(terms: readonly string[]): number {
  let n = 0;
  for (const t of terms) if (!t.startsWith(STEM_PREFIX)) n++;
  return n;
}

/** A matched chunk's count of a term, when it holds the term. */
function note(list: { at: number[]; tf: number[] }, at: number, tf: number): void {
  if (tf === 0) return;
  list.at.push(at);
  list.tf.push(Math.min(tf, 65535));
}

/** A term's counts as a posting list over the matched chunks, or undefined when none holds it. */
function postingList({ at, tf }: { at: number[]; tf: number[] }): PostingList | undefined {
  return at.length ? { chunks: Uint32Array.from(at), freqs: Uint16Array.from(tf) } : undefined;
}
