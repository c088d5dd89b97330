// Term proximity for the default mode's words: a section in which the question's words stand close together is
// preferred over one that holds them apart or only one of them (Büttcher, Clarke & Lushman 2006, "Term proximity
// scoring for ad-hoc retrieval on very large text collections": BM25TP). BM25F counts words and knows nothing of
// their order, so a short section naming one rare question word once can pass a long one whose text says "read …
// file … line by line" again and again (the readline question, docs/results/retrieval-stemming.md). Positions are
// not in any index (nor in the pages): the proximity is read from the text of the chunks a question ranks first, so
// the library in memory, the one read by ranges and any other reader of chunk text score alike.
import { STEM_PREFIX, type TermAnalyzer } from '../graph/index.ts';
import type { Candidate } from './types.ts';

/** What the proximity rerank reads besides the ranking: a chunk's text and a word's IDF, as the library has them. */
export interface ProximityReader {
  analyzer: TermAnalyzer;
  /** The chunk's text; undefined while it is not read yet (a library read by ranges notes it and asks again). */
  chunkText(chunk: number): string | undefined;
  /** The chunk's heading path (document › heading › subheading), read before its text when headings count. */
  chunkPath(chunk: number): readonly string[] | undefined;
  /** The word's BM25 IDF over the text (0 for a word no chunk holds). */
  idf(term: string): number;
}

/** A question's distinct words, each as written and with its stem, and the weight of its nearness (its IDF). */
interface QuestionWords {
  exact: Map<string, number>;
  stems: Map<string, number>;
  weights: number[];
}

/** Groups a question's index terms into words (a stem follows its word, analyser version 2). */
function questionWords(terms: readonly string[], idf: (term: string) => number): QuestionWords {
  const exact = new Map<string, number>();
  const stems = new Map<string, number>();
  const weights: number[] = [];
  let last = -1;
  for (const t of terms) {
    if (t.startsWith(STEM_PREFIX)) {
      if (last >= 0 && !stems.has(t)) {
        stems.set(t, last);
        // A word no chunk holds as written is weighed by its other forms.
        if (weights[last] === 0) weights[last] = idf(t);
      }
      continue;
    }
    const seen = exact.get(t);
    if (seen !== undefined) {
      last = seen;
      continue;
    }
    last = weights.length;
    exact.set(t, last);
    weights.push(idf(t));
  }
  return { exact, stems, weights };
}

/**
 * BM25TP's proximity score of one text for a question's words: each occurrence of a question word next to the
 * previous occurrence of another (other words between them count in the distance d, stop words do not) adds the
 * other's weight / d² to both words' accumulators; a word's accumulator then saturates as a BM25 term frequency
 * does (k1), weighted by min(1, its IDF). Zero when the text holds fewer than two of the question's words.
 */
function proximityScore(textTerms: readonly string[], words: QuestionWords, k1: number): number {
  const acc = new Float64Array(words.weights.length);
  let position = -1;
  let previous = -1;
  let previousAt = 0;
  let current = -1;
  for (const t of textTerms) {
    if (t.startsWith(STEM_PREFIX)) {
      // The stem of the word just read: it matches a question word only if the word as written did not.
      if (current < 0) current = words.stems.get(t) ?? -1;
      if (current >= 0)
        ({ previous, previousAt } = step(current, position, previous, previousAt, words, acc));
      current = -2; // this word is settled
      continue;
    }
    if (current >= 0) ({ previous, previousAt } = step(current, position, previous, previousAt, words, acc));
    position++;
    current = words.exact.get(t) ?? -1;
  }
  if (current >= 0) step(current, position, previous, previousAt, words, acc);
  let score = 0;
  for (let q = 0; q < acc.length; q++)
    if (acc[q] > 0) score += (Math.min(1, words.weights[q]) * acc[q] * (k1 + 1)) / (acc[q] + k1);
  return score;
}

function step(
  word: number,
  at: number,
  previous: number,
  previousAt: number,
  words: QuestionWords,
  acc: Float64Array,
): { previous: number; previousAt: number } {
  if (previous >= 0 && previous !== word) {
    const d = at - previousAt;
    const near = 1 / (d * d);
    acc[word] += words.weights[previous] * near;
    acc[previous] += words.weights[word] * near;
  }
  return { previous: word, previousAt: at };
}

/**
 * The words' ranking (best first) with its first `top` chunks rescored as score + weight × their text's proximity
 * score, then sorted again (ties by chunk). Chunks past `top` keep their score; weight 0 returns the ranking as is.
 */
export function proximityRerank(
  ranking: readonly Candidate[],
  questionTerms: readonly string[],
  reader: ProximityReader,
  {
    weight,
    top,
    k1,
    headings = false,
    scaled = false,
  }: { weight: number; top: number; k1: number; headings?: boolean; scaled?: boolean },
): Candidate[] {
  if (!(weight > 0) || top <= 0 || ranking.length === 0) return [...ranking];
  const words = questionWords(questionTerms, (t) => reader.idf(t));
  if (words.weights.length < 2) return [...ranking];
  const out = ranking.map((c) => ({ ...c }));
  let ceiling = 0;
  for (const w of words.weights) ceiling += Math.min(1, w) * (k1 + 1);
  const n = Math.min(top, out.length);
  for (let i = 0; i < n; i++) {
    const text = reader.chunkText(out[i].chunk);
    if (text === undefined) continue;
    const path = headings ? (reader.chunkPath(out[i].chunk) ?? []) : [];
    const terms = reader.analyzer.terms(path.length ? `${path.join('\n')}\n${text}` : text);
    const near = proximityScore(terms, words, k1);
    // Scaled: the score's share of its highest (every word saturated) multiplies the words' score instead.
    out[i].score = scaled ? out[i].score * (1 + (weight * near) / ceiling) : out[i].score + weight * near;
  }
  return out.sort((a, b) => b.score - a.score || a.chunk - b.chunk);
}

/**
 * The question's subject words, the only ones whose nearness counts. A person's question to documentation is long
 * and conversational: pairing any two of its words lifted prose where ordinary words stand together over the
 * section about the question's subject (round twelve, docs/results/retrieval-stemming.md). The subject is what the
 * walk starts from: the words of the question's concepts (`subjects` 1), or of its phrase and identifier concepts
 * only (2). Where that leaves fewer than two words, or with 3, the question's words whose IDF reaches `idfCut` stand
 * in for it; 0 pairs every word. Returns index terms in order, each stem after its word, as questionWords reads them.
 */
export function subjectWords(
  analyzer: TermAnalyzer,
  words: readonly string[],
  concepts: readonly string[],
  idf: (term: string) => number,
  { subjects, idfCut }: { subjects: number; idfCut: number },
): string[] {
  if (subjects === 0) return [...words];
  const plain = new Set(words);
  const subject: string[] = [];
  if (subjects !== 3)
    for (const term of concepts)
      if (subjects === 1 || !plain.has(term)) subject.push(...analyzer.terms(term));
  if (new Set(subject.filter((t) => !t.startsWith(STEM_PREFIX))).size >= 2) return subject;
  const out: string[] = [];
  let keep = false;
  for (const t of words) {
    // A stem follows its word and goes with it.
    if (!t.startsWith(STEM_PREFIX)) keep = idf(t) >= idfCut;
    if (keep) out.push(t);
  }
  return out;
}
