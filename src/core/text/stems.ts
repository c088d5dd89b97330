// English stems for word matching: "watchers" meets "watcher", "immediately" meets "immediate". The stems come
// from wink-porter2-stemmer (MIT, winkjs), an implementation of Martin Porter's Snowball English stemmer ("Porter2"),
// the algorithm Lucene's English analyzer and Elasticsearch's `english` analyzer use.
//
// Only plain English words are stemmed. Identifiers (watchEffect, snake_case, fs.readFile, v3.2, HTTP), words with
// digits, and capitalised words in the middle of a sentence (names: "Rust", "Vue", "Lothair") keep their form: a
// stem would merge a name with an ordinary word ("Windows" → "window") and an identifier with its parts.
import stem from 'wink-porter2-stemmer';
import type { WordToken } from './words.ts';

/** Lowercase ASCII letters only: the words the English stemmer is for. */
const PLAIN_WORD = /^[a-z]+$/;
/** A word as written: all lowercase, or capitalised once (the first letter) and lowercase after. */
const LOWER_SURFACE = /^[a-z]+$/;
const CAPITALISED_SURFACE = /^[A-Z][a-z]+$/;
/** What may stand between a sentence's start and its first word: spaces, quotes, list and heading marks. */
const SENTENCE_LEAD = /[ \t\u00a0"'“‘([*#>\-•]*$/;
/** Where a sentence starts: the text's start, a line break, or the end of the previous sentence. */
const SENTENCE_END = /(?:^|[\n.!?:;。！？])$/;
/** A heading in Title Case is short and capitalises every longer word ("Computed Properties"): not names. */
const MAX_TITLE_CHARS = 100;
const LONGER_WORD = /[A-Za-z]{4,}/g;

const MAX_MEMO = 200_000;
const memo = new Map<string, string>();

/** The Snowball English stem of a lowercase plain word (memoized: text repeats its words constantly). */
function englishStem(word: string): string {
  let s = memo.get(word);
  if (s === undefined) {
    s = stem(word);
    if (memo.size >= MAX_MEMO) memo.clear();
    memo.set(word, s);
  }
  return s;
}

/**
 * The stem of token `token` of `text` (possibly the word itself), or undefined when the token keeps its form (not a
 * plain English word: an identifier, a name, a word with digits, a word in another script).
 */
export function stemOf(text: string, token: WordToken): string | undefined {
  const term = token.term;
  if (term.length < 3 || !PLAIN_WORD.test(term)) return undefined;
  const surface = text.slice(token.start, token.end);
  if (!LOWER_SURFACE.test(surface)) {
    if (!CAPITALISED_SURFACE.test(surface)) return undefined;
    // A capital letter starts a sentence or a name: only the first is an ordinary word (or a Title Case heading).
    const before = text.slice(Math.max(0, token.start - 16), token.start);
    const lead = SENTENCE_LEAD.exec(before)![0];
    if (!SENTENCE_END.test(before.slice(0, before.length - lead.length)) && !inTitleLine(text, token))
      return undefined;
  }
  return englishStem(term);
}

/** Whether the token stands in a short line whose longer words are all capitalised (a Title Case heading). */
function inTitleLine(text: string, token: WordToken): boolean {
  const from = text.lastIndexOf('\n', token.start) + 1;
  let to = text.indexOf('\n', token.end);
  if (to < 0) to = text.length;
  if (to - from > MAX_TITLE_CHARS) return false;
  const words = text.slice(from, to).match(LONGER_WORD) ?? [];
  return words.length >= 2 && words.every((w) => w[0] >= 'A' && w[0] <= 'Z');
}
