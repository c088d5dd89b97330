// The TermAnalyzer (see src/core/graph/analyzer.ts) backed by this folder's tokenizer: what the concept graph,
// BM25 and question matching use to turn text into terms.
//
// Versions (recorded in a library read by ranges, src/core/paged, so that it is questioned as it was built):
//   1  words as written (lowercased, NFKC), stop words removed;
//   2  as 1, and every plain English word is followed by its Snowball stem (stems.ts) marked with STEM_PREFIX:
//      "watchers" gives "watchers", "~watcher". BM25 scores a question's stem only for the passages its word as
//      written did not reach, and at a lower weight (retrieval/fieldBm25.ts), so the exact word is preferred and a
//      question word counts once however many forms it has. Names and identifiers are never stemmed.
import { STEM_PREFIX, type TermAnalyzer } from '../graph/index.ts';
import { isGenericWord } from './generic.ts';
import { wordPairs } from './grams.ts';
import { codeIdentifiers } from './identifiers.ts';
import { stemOf } from './stems.ts';
import { capitalizedPhrases, indexTerms, isIndexTerm, wordTokens } from './words.ts';

/** The analyser version new libraries are built with. */
const ANALYZER_VERSION = 2;
/** The versions this app can question a library with (a library without a record was built with version 1). */
const VERSIONS = [1, 2] as const;

/** Index terms with the stems of the plain English words beside them (version 2). */
function stemmedTerms(text: string): string[] {
  const terms: string[] = [];
  for (const token of wordTokens(text)) {
    if (!isIndexTerm(token.term)) continue;
    terms.push(token.term);
    const s = stemOf(text, token);
    if (s !== undefined) terms.push(STEM_PREFIX + s);
  }
  return terms;
}

/**
 * What a person never reads as a subject, blanked (same length) before concepts are picked from a text: include
 * directives of documentation builders ({{#rustdoc_include ../listings/ch08/src/main.rs}}), numbered listing and
 * figure labels ("Listing 8-1"), URLs, and file paths and names (src/main.rs, output.txt, Cargo.toml). They stay words
 * for BM25: only the concept candidates leave them out (version 2).
 */
const NON_CONCEPTS = [
  /\{\{#[^}]*\}\}/g,
  /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi,
  /\b(?:Listing|Figure|Table|Example)\s+\d+(?:[-.]\d+)*/g,
  /(?<![\w@])(?:[\w.-]+\/)+[\w.-]*|\b[\w-]+\.(?:rs|toml|txt|md|json|js|mjs|cjs|ts|tsx|jsx|vue|html|css|py|sh|yml|yaml|lock|log|c|h|cpp|go|java|rb|xml|csv|png|jpg|svg|pdf)\b/g,
];
function withoutNonConcepts(text: string): string {
  let out = text;
  for (const pattern of NON_CONCEPTS) out = out.replace(pattern, (m) => ' '.repeat(m.length));
  return out;
}

export function createTermAnalyzer(version: number = ANALYZER_VERSION): TermAnalyzer {
  if (!(VERSIONS as readonly number[]).includes(version)) {
    throw new Error(`text analyzer: version ${version} is unknown (this app knows ${VERSIONS.join(', ')})`);
  }
  const analyzer: TermAnalyzer = {
    version,
    atVersion: (v) => (v === version ? analyzer : createTermAnalyzer(v)),
    terms: version >= 2 ? stemmedTerms : (text) => indexTerms(text),
    phrases: (text) => capitalizedPhrases(text).map((phrase) => phrase.term),
    words: (text) => wordTokens(text).map((token) => token.term),
    candidates: (raw) => {
      const text = version >= 2 ? withoutNonConcepts(raw) : raw;
      const units = capitalizedPhrases(text).map((phrase) => phrase.term);
      // One tokenization for the words and the pairs.
      const tokens = wordTokens(text);
      const words: string[] = [];
      for (const { term } of tokens) if (isIndexTerm(term) && !isGenericWord(term)) words.push(term);
      for (const id of codeIdentifiers(text)) {
        units.push(id.whole);
        for (const part of id.parts) if (!isGenericWord(part)) words.push(part);
      }
      return {
        words,
        units,
        pairs: wordPairs(text, tokens),
      };
    },
  };
  return analyzer;
}
