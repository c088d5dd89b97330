// Concept selection per chunk (G2ConS step 1: TF-IDF keywords of each chunk, no LLM). A chunk's concepts are its
// keyphrases: the candidates (analyzer.ts: non-generic words, names and identifiers as units, recurring word pairs)
// that are salient in this chunk against the other chunks of its own document, plus the terms of its headings.
//
// Why the document and not the library: a chunk's keyphrases then depend on its document alone, so adding or
// removing other documents never changes them. The incremental graph stays exact (it keeps per-term state and
// only sees these lists), a library that mixes manuals with an encyclopedia does not change what a manual's
// chunks are about, and the library-wide document-frequency cap (extractConcepts) is left to stop only the hubs.
// "computed" in the Computed Properties page is in every chunk of that page, so its within-document IDF is low;
// the page's heading keeps it as the subject of each of its chunks.
import { candidatesOf, plainTerms, type TermAnalyzer } from './analyzer.ts';

export interface KeyphraseChunk {
  docId: string;
  text: string;
  /** Heading path document › heading › subheading, when the source has one. */
  path?: readonly string[];
}

/** Weight of a candidate that names a heading of the chunk, and of a unit or recurring pair over a single word. */
const HEADING_BOOST = 2;
const UNIT_BOOST = 1.5;
/** Candidates a document of one chunk keeps at least (all of them when it has fewer), see documentKeyphrases. */
const SINGLE_CHUNK_KEEP = 100;
/** Words of scripts written without spaces, which the segmenter cuts by dictionary (Chinese, Japanese). */
const UNSPACED = /\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}/u;

/** Whether most of a chunk's candidates are words of an unspaced script. */
function mostlyUnspaced(scored: ReadonlyArray<[string, number]>): boolean {
  let unspaced = 0;
  for (const [term] of scored) if (UNSPACED.test(term)) unspaced++;
  return 2 * unspaced > scored.length;
}

/**
 * Concept terms of every chunk, with repetitions (tf), in the order given. Chunks are grouped by document; a
 * document's chunks must all be in the same call (the app stores a document's chunks together).
 */
export function chunkKeyphrases(
  analyzer: TermAnalyzer,
  chunks: readonly KeyphraseChunk[],
  options: Pick<ConceptListOptions, 'keyphraseScale'>,
): string[][] {
  const byDoc = new Map<string, number[]>();
  chunks.forEach((c, i) => {
    const list = byDoc.get(c.docId);
    if (list) list.push(i);
    else byDoc.set(c.docId, [i]);
  });
  const out: string[][] = new Array(chunks.length);
  for (const members of byDoc.values()) {
    const lists = documentKeyphrases(
      analyzer,
      members.map((i) => chunks[i]),
      options,
    );
    members.forEach((i, j) => (out[i] = lists[j]));
  }
  return out;
}

interface ChunkCandidates {
  /** term → tf in the chunk */
  counts: Map<string, number>;
  units: Set<string>;
  heading: Set<string>;
}

/** Keyphrases of the chunks of one document (see chunkKeyphrases). */
function documentKeyphrases(
  analyzer: TermAnalyzer,
  chunks: readonly KeyphraseChunk[],
  options: Pick<ConceptListOptions, 'keyphraseScale'>,
): string[][] {
  // Heading terms of each distinct heading path, analysed once per document.
  const headingCache = new Map<string, Set<string>>();
  const headingTerms = (path: readonly string[] | undefined): Set<string> => {
    if (!path?.length) return new Set();
    const key = path.join('\u0000');
    let set = headingCache.get(key);
    if (!set) {
      const c = candidatesOf(analyzer, path.join('\n'));
      set = new Set([...c.words, ...c.units, ...c.pairs]);
      headingCache.set(key, set);
    }
    return set;
  };
  const n = chunks.length;
  const pairDocCount = new Map<string, number>();
  const raw = chunks.map((chunk) => {
    const c = candidatesOf(analyzer, chunk.text);
    for (const p of c.pairs) pairDocCount.set(p, (pairDocCount.get(p) ?? 0) + 1);
    return c;
  });
  const prepared: ChunkCandidates[] = raw.map((c, k) => {
    const heading = headingTerms(chunks[k].path);
    const counts = new Map<string, number>();
    const add = (t: string) => counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const t of c.words) add(t);
    for (const t of c.units) add(t);
    // A word pair is a term where it recurs in the document or names a heading ("computed property" in the
    // Computed Properties page); a pair seen once is just two words side by side. A passage that is its own
    // document (an encyclopedia paragraph) has no other section to recur in: its names are its phrases (measured:
    // pairs from single-passage titles cost HotpotQA 2 points of R@5).
    if (n > 1) for (const t of c.pairs) if ((pairDocCount.get(t) ?? 0) >= 2 || heading.has(t)) add(t);
    // The headings name the chunk's subject even where its text does not repeat them.
    for (const t of heading) if (!counts.has(t) && (n > 1 || !t.includes(' '))) counts.set(t, 1);
    return { counts, units: new Set([...c.units, ...c.pairs]), heading };
  });
  // Document frequency of each candidate within the document.
  const df = new Map<string, number>();
  for (const p of prepared) for (const t of p.counts.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  return prepared.map(({ counts, units, heading }) => {
    const scored: Array<[string, number]> = [];
    for (const [term, tf] of counts) {
      const idf = Math.log((n + 1) / (df.get(term)! + 0.5)) + 1;
      let score = (1 + Math.log(tf)) * idf;
      if (heading.has(term)) score *= HEADING_BOOST;
      if (units.has(term)) score *= UNIT_BOOST;
      scored.push([term, score]);
    }
    // Ties broken by term so the result does not depend on the order of the text.
    scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    // A document of one chunk (an encyclopedia paragraph, a paragraph of a paper) has no other section to weigh
    // its words against: every within-document IDF is the same, so a cap keeps the most repeated words and then
    // cuts the rest in alphabetical order. Chinese and Japanese prose, whose segmenter words mostly occur once per
    // paragraph, lost the words a question names that way (default R@2 55 against bm25 75 on test/bench/heldout/
    // zhprose): such a chunk keeps its candidates, up to SINGLE_CHUNK_KEEP, so a long page held in one chunk still
    // links a bounded number of concepts. English paragraphs keep the cap: keeping all of theirs cost MuSiQue 2.7
    // points of R@5 (docs/results/retrieval-stemming.md).
    const capped = Math.ceil(options.keyphraseScale * Math.sqrt(scored.length));
    const k =
      options.keyphraseScale <= 0
        ? scored.length
        : n > 1 || !mostlyUnspaced(scored)
          ? capped
          : Math.max(capped, Math.min(scored.length, SINGLE_CHUNK_KEEP));
    const out: string[] = [];
    scored.forEach(([term], rank) => {
      // Heading terms are always kept: they say what the chunk is about even when it is long.
      if (rank >= k && !heading.has(term)) return;
      for (let i = counts.get(term)!; i > 0; i--) out.push(term);
    });
    return out;
  });
}

export interface ConceptListOptions {
  /**
   * How many keyphrases a chunk keeps: ⌈keyphraseScale · √(distinct candidates)⌉ (0 = every candidate). The square
   * root makes long chunks keep more terms, but fewer per word, so edges per chunk stay bounded.
   */
  keyphraseScale: number;
  /** Names (capitalized phrases) as concepts; off = index terms only (the plain TF-IDF graph). */
  phrases: boolean;
  /** Keyphrases per chunk (this module); off = every index term and phrase of the chunk (the previous graph). */
  keyphrases: boolean;
}

/** The concept terms of each chunk, with repetitions, as every graph build takes them (full or incremental). */
export function chunkConceptLists(
  analyzer: TermAnalyzer,
  chunks: readonly KeyphraseChunk[],
  options: ConceptListOptions,
): string[][] {
  if (!options.phrases) return chunks.map((c) => plainTerms(analyzer, c.text));
  if (!options.keyphrases)
    return chunks.map((c) => [...plainTerms(analyzer, c.text), ...analyzer.phrases(c.text)]);
  return chunkKeyphrases(analyzer, chunks, options);
}
