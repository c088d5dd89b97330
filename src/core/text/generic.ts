// Generic words: words that say nothing about what a passage is about ("makes", "much", "important", "actually",
// 而且, 可以). They stay searchable words (BM25 still counts them), but they are never concepts. The list is
// stopwords-iso's English and Chinese lists (a maintained collection, 1,298 and 794 words) plus our own closed-class
// stop words, so it does not depend on the library: a word generic in English is generic in every library.
import stopwordsIso from 'stopwords-iso';
import { isStopWord } from './stopwords.ts';

const GENERIC = new Set<string>([...stopwordsIso.en, ...stopwordsIso.zh]);
/** Bare numbers ("2023", "1,000", "3.5"): counts and years link unrelated passages, they name no subject. */
const NUMBER = /^\p{N}+(?:[.,]\p{N}+)*$/u;

/** True when `term` (lowercased, as the tokenizer gives it) can never be a concept. */
export function isGenericWord(term: string): boolean {
  return GENERIC.has(term) || isStopWord(term) || NUMBER.test(term);
}
