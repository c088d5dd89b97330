// The TermAnalyzer (see src/core/graph/analyzer.ts) backed by this folder's tokenizer: what the concept graph,
// BM25 and question matching use to turn text into terms.
import type { TermAnalyzer } from '../graph/index.ts';
import { isGenericWord } from './generic.ts';
import { wordPairs } from './grams.ts';
import { codeIdentifiers } from './identifiers.ts';
import { capitalizedPhrases, indexTerms, isIndexTerm, wordTokens } from './words.ts';

export function createTermAnalyzer(): TermAnalyzer {
  return {
    terms: (text) => indexTerms(text),
    phrases: (text) => capitalizedPhrases(text).map((phrase) => phrase.term),
    words: (text) => wordTokens(text).map((token) => token.term),
    candidates: (text) => {
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
}
