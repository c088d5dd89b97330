// The atomic-question index: finds the atomic questions most similar to a query (a question, or a sub-question of
// the decomposition), by meaning (cosine of the library's embeddings) and by words (BM25 over the questions'
// terms), so the layer still works where the embedder matches names poorly (USE-lite). The similarity compared
// with δ is the larger of the two: the cosine, or the BM25 score normalized by what a question holding each query
// term once at average length would score (1 = every query term present), so both live on one 0…1 scale.
import { dot } from '../embed/index.ts';
import { createTermAnalyzer } from '../text/index.ts';
import type { AtomicHit, AtomicQuestion } from './types.ts';

/** Similarity a question must reach (PIKE-RAG's δ for its hierarchical retriever). */
export const DEFAULT_DELTA = 0.5;
/** Atomic questions kept per query (the paper's "4 chunks … via each atomic query"). */
export const DEFAULT_TOP_K = 4;

const K1 = 1.2;
const B = 0.75;

export interface AtomicSearchOptions {
  topK?: number;
  delta?: number;
}

export class AtomicIndex {
  private readonly postings = new Map<string, Array<{ q: number; tf: number }>>();
  private readonly lengths: Float32Array;
  private readonly avgLength: number;
  // Version 1 (no stems): this index scores every term alike, and the atomic layer was not measured with stems.
  private readonly terms = createTermAnalyzer(1).terms;

  constructor(readonly questions: readonly AtomicQuestion[]) {
    const terms = this.terms;
    this.lengths = new Float32Array(questions.length);
    let total = 0;
    questions.forEach((question, q) => {
      const list = terms(question.text);
      this.lengths[q] = list.length;
      total += list.length;
      const counts = new Map<string, number>();
      for (const t of list) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [t, tf] of counts) {
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = []));
        p.push({ q, tf });
      }
    });
    this.avgLength = questions.length ? Math.max(1e-9, total / questions.length) : 1;
  }

  get size(): number {
    return this.questions.length;
  }

  /** Chunks that have at least one atomic question. */
  get chunkCount(): number {
    return new Set(this.questions.map((q) => q.chunkId)).size;
  }

  /**
   * The top K atomic questions with similarity ≥ δ, best first (ties: more lexical evidence, then id). `exclude`
   * drops questions of chunks already in a context.
   */
  search(
    query: { text: string; vector?: Float32Array },
    options: AtomicSearchOptions & { exclude?: ReadonlySet<string> } = {},
  ): AtomicHit[] {
    const topK = options.topK ?? DEFAULT_TOP_K;
    const delta = options.delta ?? DEFAULT_DELTA;
    const lexical = this.lexical(query.text);
    const hits: AtomicHit[] = [];
    this.questions.forEach((question, q) => {
      if (options.exclude?.has(question.chunkId)) return;
      const lex = lexical.get(q) ?? 0;
      const dense =
        query.vector && question.vector && question.vector.length === query.vector.length
          ? dot(query.vector, question.vector)
          : undefined;
      const score = Math.max(lex, dense ?? 0);
      if (score >= delta && score > 0) {
        hits.push({ question, score, lexical: lex, ...(dense === undefined ? {} : { dense }) });
      }
    });
    hits.sort(
      (a, b) =>
        b.score - a.score ||
        b.lexical - a.lexical ||
        (a.question.id < b.question.id ? -1 : a.question.id > b.question.id ? 1 : 0),
    );
    return hits.slice(0, Math.max(0, topK));
  }

  /** Normalized BM25 of every question sharing a term with the query. */
  private lexical(text: string): Map<number, number> {
    const scores = new Map<number, number>();
    const n = this.questions.length;
    const distinct = [...new Set(this.terms(text))];
    let norm = 0;
    for (const t of distinct) {
      const p = this.postings.get(t);
      const df = p?.length ?? 0;
      // A query term no question has still counts in the norm: the questions lack it.
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      norm += idf;
      if (!p) continue;
      for (const { q, tf } of p) {
        const lengthNorm = 1 - B + (B * this.lengths[q]) / this.avgLength;
        scores.set(q, (scores.get(q) ?? 0) + (idf * tf * (K1 + 1)) / (tf + K1 * lengthNorm));
      }
    }
    if (norm > 0) for (const [q, s] of scores) scores.set(q, Math.min(1, s / norm));
    return scores;
  }
}
