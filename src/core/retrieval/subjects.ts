// A library's subjects: its top concepts as a person reads them (the Graph view's first picture, `cli info
// --concepts`). PageRank over the co-occurrence graph ranks first the words every chapter uses ("add", "returns",
// "data", "error" in a programming book), and a subject written in two forms ("closure", "closures") splits its mass.
// So the top list:
//   - merges the concepts that share their Snowball stems (one entry: the form of highest PageRank);
//   - weighs a single word by how it spreads over the library's documents, not by a hand list: residual IDF (Church &
//     Gale 1995, "Poisson mixtures"), the log₂ of the documents its occurrences would reach if scattered at random
//     over the text over the documents they do reach. A generic word of technical writing is in about as many
//     documents as chance puts it in (≈ 0 bits: "chapter" 0.0, "compile" 0.2 in the Rust book); a subject gathers
//     in the documents about it ("thread" 1.9, "crate" 1.7). The weight is min(1, RIDF): a word that gathers at
//     least by half (1 bit) keeps its whole PageRank. Phrases (several words) and units the word index does not hold
//     whole ("console.log") keep theirs: the generic words of technical writing are single words.
// The walk and the concepts themselves do not change: only the order the top list shows them in.
import { STEM_PREFIX, type ConceptGraphIndex } from '../graph/index.ts';
import type { Bm25Index } from './bm25.ts';

/** What the subjects are read from: the concept graph, and the word index with each chunk's document. */
export interface SubjectSource {
  graph: ConceptGraphIndex;
  /** Word occurrences per chunk (chunk numbers as the graph's). */
  words: Pick<Bm25Index, 'postingsOf' | 'lengthOf'>;
  /** Document ordinal of every chunk, in the graph's chunk order. */
  documentOf: Uint32Array;
  /** The library analyser's terms of a text (stems marked with STEM_PREFIX after their word). */
  terms(text: string): string[];
}

/** Concepts weighed for the spread, best PageRank first: enough for a top list and the forms merged into it. */
const POOL_FACTOR = 4;
const MIN_POOL = 400;

/**
 * A score per concept for the top list: its PageRank times its spread weight for the form of highest PageRank among
 * those sharing its stems, 0 for the other forms and for concepts outside the POOL_FACTOR · limit best by PageRank.
 */
export function subjectScores(source: SubjectSource, limit: number): Float64Array {
  const { graph } = source;
  const rank = graph.conceptRank;
  const terms = graph.table.terms;
  const pool = Math.min(terms.length, Math.max(MIN_POOL, POOL_FACTOR * limit));
  const order = Array.from(rank.keys())
    .sort((a, b) => rank[b] - rank[a] || a - b)
    .slice(0, pool);
  const documentLength = documentLengths(source);
  let words = 0;
  for (const length of documentLength) words += length;
  // One entry per stem: the form of highest PageRank stands for the others, with its own PageRank. Summing the
  // forms' PageRank was tried: a family of many forms (execute, executed, executes, execution…) then outranked
  // every subject ("execute", "declaration" and "appendix" in the Rust book's first five).
  const scores = new Float64Array(terms.length);
  const seen = new Set<string>();
  for (const c of order) {
    const analysed = source.terms(terms[c]);
    const key = stemKey(analysed) || terms[c];
    if (seen.has(key)) continue;
    seen.add(key);
    // A single word spreads as its stem does: the stem's postings are every form's, so "closure" and "closures"
    // are weighed as one word.
    const word = analysed.length === 2 && analysed[1].startsWith(STEM_PREFIX) ? analysed[1] : terms[c];
    scores[c] = rank[c] * spreadWeight(source, word, documentLength, words);
  }
  return scores;
}

/** A term's words with each replaced by its stem where it has one, joined by a space: what forms of it share. */
export function stemKey(analysed: readonly string[]): string {
  const out: string[] = [];
  for (const t of analysed) {
    if (t.startsWith(STEM_PREFIX)) out[out.length - 1] = t.slice(STEM_PREFIX.length);
    else out.push(t);
  }
  return out.join(' ');
}

/** Words of every document (Σ of its chunks' lengths), by document ordinal. */
function documentLengths(source: SubjectSource): Float64Array {
  let documents = 0;
  for (const d of source.documentOf) documents = Math.max(documents, d + 1);
  const lengths = new Float64Array(documents);
  source.documentOf.forEach((d, k) => (lengths[d] += source.words.lengthOf(k)));
  return lengths;
}

/** min(1, residual IDF in bits) of a single word over the documents; 1 for anything else (see the header). */
function spreadWeight(
  source: SubjectSource,
  term: string,
  documentLength: Float64Array,
  words: number,
): number {
  if (/\s/.test(term)) return 1;
  const postings = source.words.postingsOf(term);
  if (!postings) return 1;
  let occurrences = 0;
  const reached = new Set<number>();
  postings.chunks.forEach((k, i) => {
    occurrences += postings.freqs[i];
    reached.add(source.documentOf[k]);
  });
  let expected = 0;
  for (const length of documentLength) expected += 1 - Math.exp((-occurrences * length) / words);
  return Math.min(1, Math.max(0, Math.log2(expected / reached.size)));
}
