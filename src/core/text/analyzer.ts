// The TermAnalyzer (see src/core/graph/analyzer.ts) backed by this folder's tokenizer: what the concept graph,
// BM25 and question matching use to turn text into terms.
import type { TermAnalyzer } from '../graph/index.ts';
import { isGenericWord } from './generic.ts';
import { wordPairs } from './grams.ts';
import { codeIdentifiers } from './identifiers.ts';
import { capitalizedPhrases, indexTerms, wordTokens } from './words.ts';

export function createTermAnalyzer(): TermAnalyzer {
  return {
    terms: (text) => indexTerms(text),
    phrases: (text) => capitalizedPhrases(text).map((phrase) => phrase.term),
    words: (text) => wordTokens(text).map((token) => token.term),
    candidates: (text) => {
      const units = capitalizedPhrases(text).map((phrase) => phrase.term);
      const words = indexTerms(text).filter((t) => !isGenericWord(t));
      for (const id of codeIdentifiers(text)) {
        units.push(id.whole);
        for (const part of id.parts) if (!isGenericWord(part)) words.push(part);
      }
      return {
        words,
        units,
        pairs: wordPairs(text),
      };
    },
  };
}
