// How text becomes concept terms. The graph and the retrieval modes take an analyser instead of importing the
// tokenizer directly, so the algorithms are testable on hand-made term lists and the phrase option is one switch.

/**
 * Marks a stem among an analyser's terms ("~watcher"): a word as written never starts with it. A stem is matched
 * only where its word is not (retrieval/fieldBm25.ts), and is never a concept.
 */
export const STEM_PREFIX = '~';

export interface TermAnalyzer {
  /**
   * Which analysis this is (src/core/text/analyzer.ts says what each version does). A library read by ranges
   * records the version its word index was built with; absent in hand-made analysers.
   */
  readonly version?: number;
  /** The same analyser at another version, to question a library built with it (throws for an unknown one). */
  atVersion?(version: number): TermAnalyzer;
  /** Index terms of a text, with repetitions: lowercased word tokens minus stop words (BM25 and concepts). */
  terms(text: string): string[];
  /** Multi-word capitalized phrases ("port of spain"): lowercased words joined by one space, with repetitions. */
  phrases(text: string): string[];
  /** Every lowercased word token in order, stop words included: question n-grams are matched against phrases. */
  words(text: string): string[];
  /**
   * What a passage could name as a concept (keyphrases.ts chooses among them): its index terms minus generic
   * words, its units (capitalized phrases and code identifiers kept whole, with the identifiers' parts), and its
   * adjacent word pairs. Absent in hand-made analysers: then terms and phrases are the candidates.
   */
  candidates?(text: string): ConceptCandidates;
}

/** A text's concept candidates, each list with repetitions (see TermAnalyzer.candidates). */
export interface ConceptCandidates {
  /** Single words that are not generic (a maintained stop/common-word list, numbers). */
  words: string[];
  /** Names written as a unit: capitalized phrases ("lothair ii"), code identifiers whole ("v-model") and split. */
  units: string[];
  /** Adjacent word pairs ("computed property"): terms only where they recur or name a heading. */
  pairs: string[];
}

/** An analyser's terms of `text` without its stems: words as written, what concepts are made of. */
export function plainTerms(analyzer: TermAnalyzer, text: string): string[] {
  return analyzer.terms(text).filter((t) => !t.startsWith(STEM_PREFIX));
}

/** The candidates of `text`, from the analyser's own method or from its terms and phrases. */
export function candidatesOf(analyzer: TermAnalyzer, text: string): ConceptCandidates {
  return analyzer.candidates
    ? analyzer.candidates(text)
    : { words: plainTerms(analyzer, text), units: analyzer.phrases(text), pairs: [] };
}

/** Longest phrase (in words) looked up among a question's n-grams. */
const MAX_PHRASE_WORDS = 5;

/**
 * Concept terms mentioned in a question: its own terms plus every word n-gram (2..MAX_PHRASE_WORDS) that is a
 * known concept, so "who was the father of lothair ii" finds the phrase concept "lothair ii" whatever the casing.
 */
export function questionTerms(
  analyzer: TermAnalyzer,
  text: string,
  known: { has(term: string): boolean },
): string[] {
  const out = new Set([...plainTerms(analyzer, text), ...analyzer.phrases(text)]);
  // A possessive belongs to no name: "lothair ii's mother" must still match the phrase "lothair ii".
  const words = analyzer.words(text).map((w) => w.replace(/['’]s$/, ''));
  // Code identifiers and unspaced pairs (知识图谱) are not word n-grams: look them up as the passages give them.
  if (analyzer.candidates) {
    const own = analyzer.candidates(text);
    // Every concept the question would give as a passage: its identifiers whole and also their parts
    // ("ipcrenderer", "renderer" from ipcRenderer.invoke); its plain words are among its terms already.
    for (const t of [...own.units, ...own.pairs, ...own.words]) if (known.has(t)) out.add(t);
  }
  for (let i = 0; i < words.length; i++) {
    let gram = words[i];
    for (let n = 2; n <= MAX_PHRASE_WORDS && i + n - 1 < words.length; n++) {
      gram += ' ' + words[i + n - 1];
      if (known.has(gram)) out.add(gram);
    }
  }
  return [...out];
}

/**
 * Every concept term a sentence (or any text) mentions, with repetitions, before any selection: which concepts a
 * sentence names (the concept vectors average the sentences that name them). Without phrases, index terms only.
 */
export function conceptTerms(analyzer: TermAnalyzer, text: string, phrases: boolean): string[] {
  if (!phrases) return plainTerms(analyzer, text);
  const c = candidatesOf(analyzer, text);
  return [...c.words, ...c.units, ...c.pairs];
}
