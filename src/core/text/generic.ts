// Generic words: words that say nothing about what a passage is about ("makes", "much", "important", "actually",
// 而且, 可以). They stay searchable words (BM25 still counts them), but they are never concepts. The list does not
// depend on the library: a word generic in English is generic in every library. It joins
//   - stopwords-iso's English and Chinese lists (a maintained collection, 1,298 and 794 words),
//   - the 1,000 most frequent words of spoken English (SUBTLEX-US, spokenCommon.ts): "time", "single", "sure",
//     "needed" are not stop words, but a library's subjects (component, ownership, 知识图谱) are rare in speech,
//   - the keywords and placeholder names every code sample repeats (const, return, foo), which no maintained word
//     list holds: documentation's code blocks otherwise make them its most central "concepts". Not `struct` and
//     `enum`: they declare a kind of type, and a book about a language has chapters about them; neither is a word
//     of English prose (`class` stays generic through the spoken list; `interface`, a prose word too, stays here:
//     taking it out changes the encyclopedia sets, which was not measured),
//   - our own closed-class stop words, and bare numbers.
import stopwordsIso from 'stopwords-iso' with { type: 'json' };
import { SPOKEN_COMMON } from './spokenCommon.ts';
import { isStopWord } from './stopwords.ts';

const CODE_KEYWORDS = `e.g i.e etc const let var function return import export default from new this true false null undefined
void typeof instanceof async await yield class extends implements interface static public private protected
else elif then while loop break continue switch case try catch finally throw throws def fn func pub mut impl
use self super nil none println printf console log foo bar baz qux div span br li ul ol px em rem`;

const GENERIC = new Set<string>([
  ...stopwordsIso.en,
  ...stopwordsIso.zh,
  ...SPOKEN_COMMON.split(/\s+/).filter(Boolean),
  ...CODE_KEYWORDS.split(/\s+/).filter(Boolean),
]);
/** Bare numbers ("2023", "1,000", "3.5"): counts and years link unrelated passages, they name no subject. */
const NUMBER = /^\p{N}+(?:[.,]\p{N}+)*$/u;

/** True when `term` (lowercased, as the tokenizer gives it) can never be a concept. */
export function isGenericWord(term: string): boolean {
  return GENERIC.has(term) || isStopWord(term) || NUMBER.test(term);
}
