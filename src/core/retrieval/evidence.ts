// From a ranking to the evidence a reader is shown: ranked chunks cut to the token budget, long sections given as
// their best run of sentences (with the section's heading), each with its highlighted sentences and provenance.
// Written once over EvidenceSource, so an engine in memory (engine.ts) and a library read by ranges
// (src/core/paged) show the same evidence for the same ranking.
import type { TermAnalyzer } from '../graph/index.ts';
import { questionTerms } from '../graph/index.ts';
import { countTokens } from '../text/index.ts';
import { cutToBudget } from './budget.ts';
import type { TermLookup } from './conceptAccess.ts';
import type { RetrievalChunkInput, RetrievalSentenceInput } from './corpusLayout.ts';
import { bestExcerpt } from './excerpt.ts';
import { pickSentences, TOPIC_WEIGHT } from './sentencePick.ts';
import type { Candidate, RetrievedChunk, SentenceHit } from './types.ts';

/** How much of the evidence is given as windows of long sections (see windowed). */
export const WINDOWED_TOKENS = 3000;

/**
 * The window of every piece after the first, as a share of the first's. The best-ranked section keeps the room its
 * answer may need (a Chinese paper's section lost its answer in a 250-token window); the sections after it give
 * their best few sentences, so the first thousand tokens reach one or two sections further down the ranking
 * instead of ending on one whole section (Vue docs CR@1000 88.3 → 93.3, CR@3000 unchanged; see
 * docs/results/retrieval-stemming.md, round six).
 */
export const FOLLOWING_WINDOW_SHARE = 0.6;

/** Sentences whose analysed terms a source keeps (about 20 MB at most). */
const SENTENCE_TERM_CACHE = 50_000;

/** What evidence reads of a library, by chunk index in engine order. */
export interface EvidenceSource {
  readonly analyzer: TermAnalyzer;
  chunk(k: number): RetrievalChunkInput;
  /** Chunk k's sentences in text order, and the index of the first one (its row in `sentenceVectors`). */
  sentences(k: number): { first: number; list: readonly RetrievalSentenceInput[] };
  /** Chunks in chunk k's document. */
  documentChunks(k: number): number;
  conceptTerm(c: number): string;
  /** Sentence vectors in layout order (absent without the semantic layer), and their dimension. */
  readonly sentenceVectors?: Float32Array;
  readonly dimension: number;
  /** A sentence's analysed terms, cached (see SentenceTermCache). */
  sentenceTerms(s: number, text: string): Set<string>;
}

/** What a question's sentences are scored on: its words and its concept units, IDF-weighted. */
export interface SentenceQuery {
  words: Map<string, number>;
  units: Array<[string, number]>;
  total: number;
}

/** The question's words (weighted by their BM25 IDF) and its concept units (by concept IDF). */
export function sentenceQuery(
  analyzer: TermAnalyzer,
  text: string,
  wordIdf: (term: string) => number,
  conceptIds: TermLookup,
  conceptIdf: (c: number) => number,
): SentenceQuery {
  const words = new Map<string, number>();
  for (const t of analyzer.terms(text)) words.set(t, wordIdf(t));
  const units: Array<[string, number]> = [];
  for (const t of questionTerms(analyzer, text, conceptIds)) {
    const c = conceptIds.get(t);
    if (!words.has(t) && c !== undefined && conceptIdf(c) > 0) units.push([t, conceptIdf(c)]);
  }
  let total = 0;
  for (const w of words.values()) total += w;
  for (const [, w] of units) total += w;
  return { words, units, total };
}

/**
 * A sentence's analysed terms, kept for the sentences read lately: the evidence of every question scores the
 * sentences of its best chunks, and Chinese text goes through Intl.Segmenter, the slowest step of a search.
 */
export class SentenceTermCache {
  private readonly cache = new Map<number, Set<string>>();
  constructor(private readonly analyzer: TermAnalyzer) {}

  get(s: number, text: string): Set<string> {
    let terms = this.cache.get(s);
    if (!terms) {
      if (this.cache.size >= SENTENCE_TERM_CACHE) this.cache.clear();
      terms = new Set(this.analyzer.terms(text));
      this.cache.set(s, terms);
    }
    return terms;
  }
}

/** A chunk's pages, only where it has them (most sources have none: no undefined fields on their results). */
function pagesOf(chunk: RetrievalChunkInput): Pick<RetrievedChunk, 'pageStart' | 'pageEnd'> {
  return chunk.pageStart === undefined ? {} : { pageStart: chunk.pageStart, pageEnd: chunk.pageEnd };
}

export interface EvidenceOptions {
  mode: string;
  vector?: Float32Array;
  query: SentenceQuery;
  budgetTokens: number;
  /** Tokens of a long section's excerpt in `ppr` (RetrievalParams.evidenceTokens; 0 = whole chunks). */
  window: number;
  /** A section up to window × slack tokens is shown whole (RetrievalParams.evidenceSlack). */
  slack: number;
}

/** Answers a question from its ranking: chunks cut to the budget, with provenance and best sentences. */
export function rankedEvidence(
  source: EvidenceSource,
  ranked: readonly Candidate[],
  options: EvidenceOptions,
): RetrievedChunk[] {
  if (options.window > 0 && options.mode === 'ppr') return windowed(source, ranked, options);
  const kept = cutToBudget(
    ranked.map((c) => ({ c, tokens: source.chunk(c.chunk).tokens })),
    options.budgetTokens,
  );
  if (kept.length === 0 && ranked.length > 0) {
    const piece = excerpt(source, ranked[0], options, options.budgetTokens);
    return piece ? [piece] : [];
  }
  return kept.map(({ c }) => whole(source, c, options));
}

/**
 * Evidence at the size a reader (and an LLM's context) needs: each ranked chunk longer than its window is given as
 * its best run of sentences that fits in it (PIKE-RAG's multi-granularity: the passage ranks the chunk, the
 * sentences inside it choose what is shown), so the first thousand tokens hold the best part of several chunks
 * instead of the whole of one long section. The first piece's window is `window`, the later ones' a share of it
 * (FOLLOWING_WINDOW_SHARE).
 */
function windowed(
  source: EvidenceSource,
  ranked: readonly Candidate[],
  options: EvidenceOptions,
): RetrievedChunk[] {
  const { budgetTokens } = options;
  const following = Math.round(options.window * FOLLOWING_WINDOW_SHARE);
  const out: RetrievedChunk[] = [];
  let used = 0;
  for (const c of ranked) {
    const chunk = source.chunk(c.chunk);
    const window = out.length === 0 ? options.window : following;
    // Shown whole: a section only slightly over the window (it reads better whole); a passage that is its own
    // document (an encyclopedia paragraph is already the size of one answer, and cutting it lost 2Wiki 1.2
    // points of CR@3000); and every chunk past the first WINDOWED_TOKENS (a large budget, an LLM's context,
    // then holds whole sections, and a question scores the sentences of a few chunks, not of forty).
    const piece =
      chunk.tokens <= window * options.slack ||
      source.documentChunks(c.chunk) === 1 ||
      used >= WINDOWED_TOKENS
        ? undefined
        : excerpt(source, c, options, Math.min(window, budgetTokens - used));
    const tokens = piece ? piece.tokens : chunk.tokens;
    if (used + tokens > budgetTokens) {
      if (out.length === 0) {
        const first = excerpt(source, c, options, budgetTokens);
        return first ? [first] : [];
      }
      break;
    }
    used += tokens;
    out.push(piece ?? whole(source, c, options));
  }
  return out;
}

/** A ranked chunk given whole, with its best sentences. */
function whole(source: EvidenceSource, c: Candidate, options: EvidenceOptions): RetrievedChunk {
  const chunk = source.chunk(c.chunk);
  return {
    chunkId: chunk.id,
    docId: chunk.docId,
    score: c.score,
    text: chunk.text,
    tokens: chunk.tokens,
    path: chunk.path,
    ...pagesOf(chunk),
    provenance: provenance(source, c, options.mode),
    bestSentences: highlights(source, c.chunk, chunk.text, 0, chunk.text.length, options),
  };
}

function provenance(source: EvidenceSource, c: Candidate, mode: string): RetrievedChunk['provenance'] {
  return {
    mode,
    concepts: c.concepts?.map((id) => source.conceptTerm(id)),
    hop: c.hop,
    via: c.via,
  };
}

/** The best chunk when it alone is over the budget: its best run of sentences that fits (see excerpt.ts). */
function excerpt(
  source: EvidenceSource,
  c: Candidate,
  options: EvidenceOptions,
  budgetTokens: number,
): RetrievedChunk | undefined {
  const chunk = source.chunk(c.chunk);
  const scored = sentenceScores(source, c.chunk, options).map((h) => ({
    ...h,
    // The chunk's token count shared by characters: exact counting of every sentence of a long chunk costs more
    // than the whole search; the run chosen is counted exactly below and trimmed if the estimate was short.
    tokens: Math.max(1, Math.round(((h.end - h.start) * chunk.tokens) / Math.max(1, chunk.text.length))),
  }));
  // The section's heading travels with an excerpt cut from below it: a reader (and the model, and the context the
  // bench scores) still sees which section the sentences are from, and a heading often names the answer ("Lifetime
  // Elision", "Propagating Errors") where the sentences around the question's words do not.
  const heading = sectionHeading(chunk);
  const headingTokens = heading ? countTokens(heading) + 1 : 0;
  const room = budgetTokens - headingTokens;
  const run = room > 0 ? bestExcerpt(scored, room) : undefined;
  if (!run) return undefined;
  let text = chunk.text.slice(scored[run.first].start, scored[run.last].end);
  let tokens = countTokens(text);
  // The estimate can fall short: drop the weaker end sentence until the exact count fits.
  while (tokens > room) {
    if (run.first === run.last) return undefined;
    if (scored[run.first].score < scored[run.last].score) run.first++;
    else run.last--;
    text = chunk.text.slice(scored[run.first].start, scored[run.last].end);
    tokens = countTokens(text);
  }
  const from = scored[run.first].start;
  const shownHeading = heading && from >= heading.length ? heading : undefined;
  return {
    chunkId: chunk.id,
    docId: chunk.docId,
    score: c.score,
    text,
    tokens: tokens + (shownHeading ? headingTokens : 0),
    ...(shownHeading ? { heading: shownHeading } : {}),
    path: chunk.path,
    ...pagesOf(chunk),
    excerptStart: from,
    provenance: provenance(source, c, options.mode),
    bestSentences: highlights(source, c.chunk, text, from, scored[run.last].end, options),
  };
}

/**
 * The highlighted sentences of chunk k's text from `from` to `to` (offsets into the chunk; the shown text starts
 * at `from`), scored with the words of its heading path weighing less (sentencePick.ts says why).
 */
function highlights(
  source: EvidenceSource,
  k: number,
  text: string,
  from: number,
  to: number,
  options: EvidenceOptions,
): SentenceHit[] {
  const chunk = source.chunk(k);
  const topic = new Set(source.analyzer.terms((chunk.path ?? []).join('\n')));
  const hits = sentenceScores(source, k, options, topic)
    .filter((h) => h.start >= from && h.end <= to)
    .map((h) => ({ start: h.start - from, end: h.end - from, score: h.score }));
  return pickSentences(text, hits, {
    byVector: options.vector !== undefined && source.sentenceVectors !== undefined,
    questionTerms: new Set(options.query.words.keys()),
    terms: (t) => source.analyzer.terms(t),
    topicTerms: topic,
    heading: from === 0 ? sectionHeading(chunk) : undefined,
  });
}

/**
 * Every sentence of chunk k in text order, scored by the share of the question's words it holds (+ its cosine to
 * the question); the words in `topic` (the heading path's, when choosing the highlight) weigh TOPIC_WEIGHT.
 */
function sentenceScores(
  source: EvidenceSource,
  k: number,
  options: EvidenceOptions,
  topic?: ReadonlySet<string>,
): SentenceHit[] {
  const { vector, query } = options;
  const chunk = source.chunk(k);
  const { first, list } = source.sentences(k);
  const vectors = source.sentenceVectors;
  const dim = source.dimension;
  const topicUnits = new Set(
    topic
      ? query.units.filter(([u]) => source.analyzer.terms(u).every((t) => topic.has(t))).map(([u]) => u)
      : [],
  );
  const hits: SentenceHit[] = [];
  list.forEach((sentence, i) => {
    const s = first + i;
    let score = 0;
    if (vector && vectors) {
      for (let d = 0; d < dim; d++) score += vectors[s * dim + d] * vector[d];
    }
    // The shared words count with the vectors too: a sentence model that does not know the library's language or
    // its terms (USE-lite on Chinese, on `Vec<T>`) otherwise chooses the excerpt alone, and on the Chinese React
    // docs it chose worse runs than the words (CR@3000 76.7 with vectors, 83.3 without; 86.7 with both).
    if (query.total > 0) {
      // Shared words weighted by their IDF: a sentence naming the question's rare word beats one sharing "use";
      // the question's names, identifiers and word pairs count where the sentence writes them (共现, v-model).
      const terms = source.sentenceTerms(s, sentence.text);
      let shared = 0;
      for (const [t, w] of query.words) if (terms.has(t)) shared += topic?.has(t) ? w * TOPIC_WEIGHT : w;
      if (query.units.length) {
        const lower = sentence.text.toLowerCase();
        for (const [u, w] of query.units)
          if (lower.includes(u)) shared += topicUnits.has(u) ? w * TOPIC_WEIGHT : w;
      }
      score += shared / query.total;
    }
    hits.push({ start: sentence.start - chunk.start, end: sentence.end - chunk.start, score });
  });
  return hits;
}

/**
 * The heading line a section chunk starts with (its heading path's last part, as the chunker writes it first), or
 * undefined for a chunk without one (a paragraph, a page of plain text).
 */
function sectionHeading(chunk: { text: string; path?: readonly string[] }): string | undefined {
  const last = chunk.path?.at(-1)?.trim();
  if (!last || !chunk.text.startsWith(last)) return undefined;
  const end = chunk.text.indexOf('\n');
  return end < 0 || end > last.length + 2 ? undefined : last;
}
