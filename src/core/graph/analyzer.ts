// How text becomes concept terms. The graph and the retrieval modes take an analyser instead of importing the
// tokenizer directly, so the algorithms are testable on hand-made term lists and the phrase option is one switch.

export interface TermAnalyzer {
  /** Index terms of a text, with repetitions: lowercased word tokens minus stop words (BM25 and concepts). */
  terms(text: string): string[];
  /** Multi-word capitalized phrases ("port of spain"): lowercased words joined by one space, with repetitions. */
  phrases(text: string): string[];
  /** Every lowercased word token in order, stop words included: question n-grams are matched against phrases. */
  words(text: string): string[];
}

/** Longest phrase (in words) looked up among a question's n-grams. */
export const MAX_PHRASE_WORDS = 5;

/**
 * Concept terms mentioned in a question: its own terms plus every word n-gram (2..MAX_PHRASE_WORDS) that is a
 * known concept, so "who was the father of lothair ii" finds the phrase concept "lothair ii" whatever the casing.
 */
export function questionTerms(
  analyzer: TermAnalyzer,
  text: string,
  known: ReadonlyMap<string, number>,
): string[] {
  const out = new Set([...analyzer.terms(text), ...analyzer.phrases(text)]);
  // A possessive belongs to no name: "lothair ii's mother" must still match the phrase "lothair ii".
  const words = analyzer.words(text).map((w) => w.replace(/['’]s$/, ''));
  for (let i = 0; i < words.length; i++) {
    let gram = words[i];
    for (let n = 2; n <= MAX_PHRASE_WORDS && i + n - 1 < words.length; n++) {
      gram += ' ' + words[i + n - 1];
      if (known.has(gram)) out.add(gram);
    }
  }
  return [...out];
}

/** Concept terms of a chunk or sentence: its index terms plus, when enabled, its phrases. */
export function conceptTerms(analyzer: TermAnalyzer, text: string, phrases: boolean): string[] {
  return phrases ? [...analyzer.terms(text), ...analyzer.phrases(text)] : analyzer.terms(text);
}
