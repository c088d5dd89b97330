// The TermAnalyzer (see src/core/graph/analyzer.ts) backed by this folder's tokenizer: what the concept graph,
// BM25 and question matching use to turn text into terms.
import type { TermAnalyzer } from '../graph/index.ts';
import { capitalizedPhrases, indexTerms, wordTokens } from './words.ts';

export function createTermAnalyzer(): TermAnalyzer {
  return {
    terms: (text) => indexTerms(text),
    phrases: (text) => capitalizedPhrases(text).map((phrase) => phrase.term),
    words: (text) => wordTokens(text).map((token) => token.term),
  };
}
