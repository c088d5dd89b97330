// Multi-word terms: two words that stand next to each other as a unit ("computed property", "scoped slots",
// "error handler"). Here every candidate pair is listed; whether it is a term is decided where the whole document is
// known (a pair that recurs in its document or names a heading, see graph/keyphrases.ts).
import { isGenericWord } from './generic.ts';
import { isStopWord } from './stopwords.ts';
import { wordTokens, type WordToken } from './words.ts';

const LONE_LATIN = /^\p{Script=Latin}$/u;
const HAS_LETTER = /\p{L}/u;
/** Dictionary-script words (Chinese, Japanese) are written without spaces: their pairs are adjacent tokens. */
const UNSPACED = /\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}/u;

function usable(term: string): boolean {
  return HAS_LETTER.test(term) && !isStopWord(term) && !LONE_LATIN.test(term);
}

/** Adjacent word pairs of `text` joined by one space, with repetitions; not both words generic. */
export function wordPairs(text: string, tokens: readonly WordToken[] = wordTokens(text)): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i];
    const b = tokens[i + 1];
    // Only a plain space between Latin words (no comma, stop or line break); nothing between unspaced words.
    const gap = text.slice(a.end, b.start);
    const unspaced = UNSPACED.test(a.term) && UNSPACED.test(b.term);
    if (unspaced ? gap !== '' : gap !== ' ') continue;
    if (!usable(a.term) || !usable(b.term)) continue;
    if (isGenericWord(a.term) && isGenericWord(b.term)) continue;
    out.push(unspaced ? a.term + b.term : `${a.term} ${b.term}`);
  }
  return out;
}
